import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { DEBIAN_PG_BIN, freePort } from './pg-cluster.js';

const exec = promisify(execFile);
const PG_AUTOCTL = '/usr/bin/pg_autoctl';

/**
 * Makes Debian's pg_auto_failover available (installing `postgresql-15-auto-failover` and `pg-auto-failover-cli` as
 * .ci/run installs chromium), or says why it cannot be: the failover test is skipped with that reason printed.
 */
export async function autoFailoverUnavailableReason(): Promise<string | undefined> {
  if (!existsSync(path.join(DEBIAN_PG_BIN, 'pg_ctl'))) return `${DEBIAN_PG_BIN} is absent`;
  if (process.getuid?.() !== 0) return 'needs root to run PostgreSQL as the postgres user';
  if (existsSync(PG_AUTOCTL) && existsSync('/usr/lib/postgresql/15/lib/pgautofailover.so')) return undefined;
  const packages = ['postgresql-15-auto-failover', 'pg-auto-failover-cli'];
  const install = () =>
    exec('apt-get', ['install', '-y', '-qq', ...packages], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
  try {
    await install().catch(async () => {
      await exec('apt-get', ['update', '-qq'], { timeout: 300_000 });
      await install();
    });
  } catch (err) {
    return `could not install ${packages.join(' and ')}: ${(err as Error).message.split('\n')[0]}`;
  }
  return existsSync(PG_AUTOCTL)
    ? undefined
    : `${PG_AUTOCTL} is absent after installing ${packages.join(', ')}`;
}

/** A pg_auto_failover formation of this test's own: a monitor, a primary and a synchronous secondary on loopback. */
export interface Formation {
  ports: number[];
  /** libpq's multi-host URL of the two nodes, for the `postgres` user and database `sched`. */
  url: string;
  state(): Promise<{ nodeport: number; current_group_state: string; assigned_group_state: string }[]>;
  /** `pg_autoctl perform failover`: returns when the monitor reports the new primary. */
  failover(): Promise<void>;
  destroy(): Promise<void>;
}

export async function createFormation(log: (line: string) => void = () => {}): Promise<Formation> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'sched-autofailover-'));
  await fs.chmod(dir, 0o755);
  const [uid, gid] = (
    await Promise.all([exec('id', ['-u', 'postgres']), exec('id', ['-g', 'postgres'])])
  ).map((r) => Number(r.stdout));
  await fs.chown(dir, uid!, gid!);
  const env = {
    PATH: `${DEBIAN_PG_BIN}:/usr/bin:/bin`,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
    LC_ALL: 'C',
  };
  const asPostgres = { uid: uid!, gid: gid!, env, cwd: dir };
  const autoctl = (args: string[]) => exec(PG_AUTOCTL, args, { ...asPostgres, timeout: 120_000 });
  const children: ChildProcess[] = [];
  const run = (name: string, args: string[]) => {
    const child = spawn(PG_AUTOCTL, args, { ...asPostgres, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line.trim()) log(`${name}: ${line}`);
    };
    child.stdout!.on('data', out);
    child.stderr!.on('data', out);
    children.push(child);
    return child;
  };
  const [monitorPort, port1, port2] = [await freePort(), await freePort(), await freePort()];
  const monitorData = path.join(dir, 'monitor');
  const monitorUri = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
  const formation: Formation = {
    ports: [port1!, port2!],
    url: `postgres://postgres@127.0.0.1:${port1},127.0.0.1:${port2}/sched?target_session_attrs=read-write&sslmode=disable`,
    async state() {
      const { stdout } = await autoctl(['show', 'state', '--pgdata', monitorData, '--json']);
      return JSON.parse(stdout);
    },
    async failover() {
      await autoctl(['perform', 'failover', '--pgdata', monitorData, '--wait', '60']);
    },
    async destroy() {
      // Only what this formation started. pg_autoctl's top process exits on SIGTERM leaving its service processes
      // and PostgreSQL behind, and a service restarts a stopped PostgreSQL: so the pg_autoctl processes go first
      // (SIGKILL, by the pids this formation started, their pg_autoctl descendants and any pg_autoctl naming its
      // folder), then an immediate stop of each of its data folders.
      const alive = children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid!);
      const autoctl = [
        ...(await descendants(alive, 'pg_autoctl')),
        ...(await processesNaming(dir, 'pg_autoctl')),
      ];
      killAll([...autoctl, ...alive]);
      for (const data of [path.join(dir, 'node2'), path.join(dir, 'node1'), monitorData]) {
        await exec(path.join(DEBIAN_PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'], {
          ...asPostgres,
          timeout: 30_000,
        }).catch(() => undefined);
      }
      // What a pg_autoctl started just before it went (a PostgreSQL started again, a base backup rebuilding a node)
      // can outlive it and write into the folder while it is removed: whatever still names the folder goes too, then
      // the folder, retried while it empties.
      killAll(await processesNaming(dir));
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
  try {
    await autoctl([
      'create',
      'monitor',
      '--pgdata',
      monitorData,
      '--pgport',
      String(monitorPort),
      '--hostname',
      '127.0.0.1',
      '--auth',
      'trust',
      '--no-ssl',
    ]);
    run('monitor', ['run', '--pgdata', monitorData]);
    await waitFor(
      async () => connects(monitorUri.replace('autoctl_node', 'postgres')),
      30_000,
      'the monitor',
    );
    for (const [i, port] of [port1, port2].entries()) {
      run(`node${i + 1}`, [
        'create',
        'postgres',
        '--pgdata',
        path.join(dir, `node${i + 1}`),
        '--pgport',
        String(port),
        '--hostname',
        '127.0.0.1',
        '--auth',
        'trust',
        '--no-ssl',
        '--dbname',
        'sched',
        '--monitor',
        monitorUri,
        '--run',
      ]);
      const want = i === 0 ? ['single', 'wait_primary', 'primary'] : ['secondary'];
      await waitFor(
        async () => {
          const nodes = await formation.state().catch(() => []);
          const node = nodes.find((n) => n.nodeport === port);
          // The standby's base backup waits for a checkpoint: ask the primary for one now.
          if (i === 1) await checkpoint(port1!);
          return (
            node !== undefined &&
            want.includes(node.current_group_state) &&
            node.current_group_state === node.assigned_group_state
          );
        },
        120_000,
        `node ${i + 1}`,
      );
    }
    return formation;
  } catch (err) {
    await formation.destroy();
    throw err;
  }
}

/** The live descendants of `roots` named `name` (Linux /proc), collected before the roots exit. */
async function descendants(roots: number[], name: string): Promise<number[]> {
  const parentOf = new Map<number, number>();
  for (const entry of await fs.readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid > 0) parentOf.set(pid, ppid);
  }
  const found: number[] = [];
  for (const [pid] of parentOf) {
    let p = parentOf.get(pid);
    while (p !== undefined && !roots.includes(p)) p = parentOf.get(p);
    if (p === undefined) continue;
    const comm = (await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (comm === name) found.push(pid);
  }
  return found;
}

/** SIGKILL to each of `pids` still there. */
function killAll(pids: readonly number[]): void {
  for (const pid of new Set(pids)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * The processes whose command line names `dir` (this formation's own folder, made for it alone), those called `name`
 * when given: a pg_autoctl service that lost its parent is no longer a descendant of what the formation started.
 */
async function processesNaming(dir: string, name?: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(dir)) continue;
    const comm = (await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (name === undefined || comm === name) found.push(pid);
  }
  return found;
}

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkpoint(port: number) {
  const client = new pg.Client({
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('checkpoint');
  } catch {
    // Not up yet.
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`pg_auto_failover: ${what} not ready in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
