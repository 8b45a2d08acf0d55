import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const exec = promisify(execFile);

/** Debian's PostgreSQL 15: the tests that crash a server run their own cluster with it, never the shared one. */
export const DEBIAN_PG_BIN = '/usr/lib/postgresql/15/bin';

/** Why a throwaway cluster cannot be started here, or undefined when it can (tests skip with this reason printed). */
export async function clusterUnavailableReason(): Promise<string | undefined> {
  if (!existsSync(path.join(DEBIAN_PG_BIN, 'pg_ctl'))) return `${DEBIAN_PG_BIN}/pg_ctl is absent`;
  if (process.getuid?.() !== 0) return 'needs root to run PostgreSQL as the postgres user (runuser)';
  try {
    await exec('id', ['-u', 'postgres']);
  } catch {
    return 'there is no postgres system user';
  }
  return undefined;
}

/**
 * A PostgreSQL cluster of its own on a free loopback port, owned by the test: it can be crashed (`pg_ctl stop -m
 * immediate`), restarted and destroyed without touching any other instance on the machine. Only the postmaster
 * pid it recorded is ever signalled.
 */
export interface TestCluster {
  port: number;
  dir: string;
  /** A URL for the superuser `postgres` (trust auth on loopback) to `database`. */
  url(database?: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the postmaster and every backend exit at once, crash recovery on next start. */
  crash(): Promise<void>;
  /** The postmaster's pid as recorded at the last start. */
  pid(): number | undefined;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  destroy(): Promise<void>;
}

export async function createCluster(opts: { settings?: string[] } = {}): Promise<TestCluster> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'sched-pgcluster-'));
  await fs.chmod(dir, 0o755);
  await exec('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  await asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-instructions',
    '-E',
    'UTF8',
  ]);
  const port = await freePort();
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'max_connections = 100',
    'fsync = off',
    ...(opts.settings ?? []),
  ];
  await fs.appendFile(path.join(data, 'postgresql.conf'), `\n${conf.join('\n')}\n`);
  const cluster = clusterOn(dir, data, port);
  await cluster.start();
  return cluster;
}

/** The handle of the cluster in `data` (not started). */
function clusterOn(dir: string, data: string, port: number): TestCluster {
  let postmaster: number | undefined;
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dir,
    url,
    async start() {
      await asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
      const text = await fs.readFile(path.join(data, 'postmaster.pid'), 'utf8');
      postmaster = Number.parseInt(text.split('\n')[0] ?? '', 10);
    },
    async crash() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    },
    pid: () => postmaster,
    async query(text, values) {
      const client = new pg.Client({ connectionString: url(), application_name: 'test-cluster-admin' });
      client.on('error', () => {});
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end().catch(() => {});
      }
    },
    async destroy() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A streaming standby of `primary` on its own loopback port, made with PostgreSQL's own tools (the same Debian
 * binaries, so one major version on both sides): `pg_basebackup` with a physical replication slot and `-R`
 * (standby.signal, primary_conninfo and primary_slot_name), then started as a hot standby. `crash()` stops it at
 * once and `start()` brings it back, streaming from where the slot kept the WAL.
 */
export async function createStandby(primary: TestCluster): Promise<TestCluster> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'sched-pgstandby-'));
  await fs.chmod(dir, 0o755);
  await exec('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const slot = `standby_${path.basename(dir).replace(/\W/g, '_').toLowerCase()}`;
  await asPostgres('pg_basebackup', [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data],
    ...['-X', 'stream', '-c', 'fast', '-R', '-C', '-S', slot],
  ]);
  const port = await freePort();
  // postgresql.auto.conf wins over the primary's postgresql.conf, copied with the backup.
  const conf = [`port = ${port}`, `unix_socket_directories = '${dir}'`, 'hot_standby = on'];
  await fs.appendFile(path.join(data, 'postgresql.auto.conf'), `\n${conf.join('\n')}\n`);
  const standby = clusterOn(dir, data, port);
  try {
    await standby.start();
  } catch (err) {
    await standby.destroy();
    throw err;
  }
  const destroy = standby.destroy;
  standby.destroy = async () => {
    await destroy();
    await primary.query('select pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
  };
  return standby;
}

async function asPostgres(tool: string, args: string[]) {
  await exec('runuser', ['-u', 'postgres', '--', path.join(DEBIAN_PG_BIN, tool), ...args], { cwd: '/' });
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
