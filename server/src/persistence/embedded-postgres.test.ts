import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBin, startServer } from '../../../test/support/server.js';
import { eventually } from '../../../test/support/wait.js';
import { postgresBinaries } from '../embedded/binaries.js';
import { ensureEmbeddedPostgres } from './embedded-postgres.js';

const exec = promisify(execFile);
const isRoot = process.getuid?.() === 0;
// The holder processes load the built launcher: Node's type stripping cannot follow the sources' `.js` imports.
const launcher = pathToFileURL(
  fileURLToPath(new URL('../../dist/persistence/embedded-postgres.js', import.meta.url)),
).href;

let tempRoot: string;
const clusterDirs = new Set<string>();

beforeAll(async () => {
  tempRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'sched-epg-'));
  // mkdtemp makes a mode-700 folder; the ordinary cases need one the postgres user can enter.
  await fs.chmod(tempRoot, 0o755);
});

afterAll(async () => {
  // A failed test must not leave a postgres running; relocated clusters live outside tempRoot.
  for (const clusterDir of clusterDirs) {
    const pid = await postmasterPid(clusterDir);
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGINT');
    if (!clusterDir.startsWith(tempRoot))
      await fs.rm(path.dirname(clusterDir), { recursive: true, force: true });
  }
  await fs.rm(tempRoot, { recursive: true, force: true });
});

async function ensure(dataDir: string, database?: string) {
  const handle = await ensureEmbeddedPostgres({ dataDir, ...(database ? { database } : {}) });
  clusterDirs.add(handle.clusterDir);
  return handle;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url, application_name: 'test-probe' });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function postmasterPid(clusterDir: string) {
  const text = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : Number.parseInt(text, 10);
}

async function postmasterPort(clusterDir: string) {
  return (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[3];
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function isRunning(clusterDir: string) {
  const pid = await postmasterPid(clusterDir);
  return pid !== undefined && isAlive(pid);
}

const portOf = (url: string) => new URL(url).port;
const postgresUid = async () => Number((await exec('id', ['-u', 'postgres'])).stdout);

/** A separate process holding a handle on dataDir until it is killed. */
function holder(dataDir: string) {
  const script = `const { ensureEmbeddedPostgres } = await import(${JSON.stringify(launcher)});
    const handle = await ensureEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} });
    console.log('READY ' + handle.url);
    setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.dirname(fileURLToPath(import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /READY (\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  ready.catch(() => {});
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    ready,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('the service role of the embedded cluster', () => {
  it('owns the database but is no superuser; a data directory made before it is moved over on start', async () => {
    const dataDir = path.join(tempRoot, 'role');
    // A data directory as the previous build left it: the service connected as the superuser, which owns it all.
    const old = await ensureEmbeddedPostgres({ dataDir, serviceRole: false });
    clusterDirs.add(old.clusterDir);
    expect(old.url).toBe(old.adminUrl);
    await query(
      old.url,
      `CREATE SCHEMA jobs;
       CREATE TYPE jobs.state AS ENUM ('created', 'done');
       CREATE TABLE jobs.job (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, state jobs.state, n serial);
       CREATE TABLE events (seq int PRIMARY KEY, body text);
       CREATE SEQUENCE loose;
       CREATE VIEW recent AS SELECT * FROM events;
       CREATE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'append-only'; END $$;
       CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION append_only();
       INSERT INTO events VALUES (1, 'kept');`,
    );
    await old.release();

    const handle = await ensure(dataDir);
    expect(handle.url).toMatch(/^postgres:\/\/sched_service:/);
    const [me] = await query<{ super: boolean; owner: string }>(
      handle.url,
      `SELECT rolsuper AS super, (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()) AS owner
         FROM pg_roles WHERE rolname = current_user`,
    );
    expect(me).toEqual({ super: false, owner: 'sched_service' });
    const left = await query<{ n: number }>(
      handle.adminUrl,
      `SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
                WHERE pg_get_userbyid(c.relowner) = 'sched' AND s.nspname IN ('public', 'jobs'))::int
            + (SELECT count(*) FROM pg_proc WHERE pg_get_userbyid(proowner) = 'sched' AND pronamespace = 'public'::regnamespace)::int
            + (SELECT count(*) FROM pg_namespace WHERE nspname = 'jobs' AND pg_get_userbyid(nspowner) = 'sched')::int
            + (SELECT count(*) FROM pg_type WHERE typname = 'state' AND pg_get_userbyid(typowner) = 'sched')::int AS n`,
    );
    expect(left[0]?.n).toBe(0);
    // It uses and changes what it owns, the data kept.
    await query(
      handle.url,
      `INSERT INTO jobs.job (state) VALUES ('done'); ALTER TABLE events ADD COLUMN at timestamptz`,
    );
    expect(await query(handle.url, 'SELECT body FROM recent')).toEqual([{ body: 'kept' }]);
    // What only a superuser may do: silence the append-only trigger for a session, run a program.
    const refused = async (sql: string) =>
      query(handle.url, sql).then(
        () => 'allowed',
        (err: { code?: string }) => err.code,
      );
    expect(await refused(`SET session_replication_role = replica`)).toBe('42501');
    expect(await refused(`COPY (SELECT 1) TO PROGRAM 'true'`)).toBe('42501');
    expect(await refused('DELETE FROM events')).toBe('P0001');
    await handle.release();
  });
});

describe('ensureEmbeddedPostgres in one process', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = path.join(tempRoot, 'shared');
  });

  it('starts one instance for concurrent callers, with the expected settings, attaches fast, and the last release stops it', async () => {
    const [a, b] = await Promise.all([ensure(dataDir), ensure(dataDir)]);
    expect(a.url).toBe(b.url);
    expect(a.url).toMatch(/^postgres:\/\/sched_service:[^@]+@127\.0\.0\.1:\d+\/sched$/);
    expect(a.adminUrl).toMatch(/^postgres:\/\/sched:[^@]+@127\.0\.0\.1:\d+\/sched$/);
    expect(a.clusterDir).toBe(path.join(dataDir, 'pg'));

    // Some of these settings only the superuser may read.
    const [row] = await query<{ max: string; fsync: string; sockets: string; tz: string }>(
      a.adminUrl,
      `SELECT current_setting('max_connections') AS max, current_setting('fsync') AS fsync,
              current_setting('unix_socket_directories') AS sockets, current_setting('TimeZone') AS tz`,
    );
    expect(row).toEqual({ max: '200', fsync: 'on', sockets: '', tz: 'UTC' });
    expect((await fs.stat(path.join(dataDir, 'pg-password'))).mode & 0o777).toBe(0o600);
    const cluster = await fs.stat(a.clusterDir);
    expect(cluster.mode & 0o777).toBe(0o700);
    if (isRoot) expect(cluster.uid).toBe(await postgresUid());

    const started = performance.now();
    const c = await ensure(dataDir);
    // Typically < 100 ms; the margin absorbs a loaded machine, and still fails on a wait for a stale lock.
    expect(performance.now() - started).toBeLessThan(3_000);
    const other = await ensure(dataDir, 'other_db');
    expect(portOf(other.url)).toBe(portOf(a.url));
    expect(await query(other.url, 'SELECT current_database() AS db')).toEqual([{ db: 'other_db' }]);

    await Promise.all([a.release(), c.release(), other.release()]);
    expect(await isRunning(a.clusterDir)).toBe(true);
    await b.release();
    await b.release(); // idempotent
    expect(await isRunning(a.clusterDir)).toBe(false);
  });

  it('keeps data across a restart', async () => {
    const first = await ensure(dataDir);
    await query(first.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES ($$survives$$)');
    await first.release();
    expect(await isRunning(first.clusterDir)).toBe(false);

    const second = await ensure(dataDir);
    expect(await query(second.url, 'SELECT value FROM kept')).toEqual([{ value: 'survives' }]);
    await second.release();
  });

  it('reports the log when the cluster cannot start', async () => {
    const broken = path.join(tempRoot, 'broken');
    const handle = await ensure(broken);
    await handle.release();
    await fs.appendFile(path.join(handle.clusterDir, 'postgresql.conf'), '\nshared_buffers = nonsense\n');
    await expect(ensure(broken)).rejects.toThrow(
      /postgres did not start[\s\S]*last lines of[\s\S]*shared_buffers/,
    );
  });
});

describe('sharing between processes', () => {
  it('a server and the admin CLI share the instance, data survives a restart, the last one stops it', async () => {
    const dataDir = path.join(tempRoot, 'serve');
    const clusterDir = path.join(dataDir, 'pg');
    clusterDirs.add(clusterDir);
    // No DATABASE_URL: the embedded PostgreSQL in dataDir.
    const server = await startServer({ databaseUrl: '', dataDir });
    const cli = (...args: string[]) => exec(process.execPath, [cliBin, ...args], { env: server.env });
    try {
      const port = await postmasterPort(clusterDir);
      const created = JSON.parse(
        (await cli('accounts', 'create', '--name', 'Shared', '--plan', 'pro', '--json')).stdout,
      );
      expect(created.account.name).toBe('Shared');
      // The CLI attached to the server's instance and left it running.
      expect(await isRunning(clusterDir)).toBe(true);
      expect(await postmasterPort(clusterDir)).toBe(port);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(await isRunning(clusterDir)).toBe(false);

    // Alone, the CLI starts the instance, finds the data and stops it again.
    const { stdout } = await cli('accounts', 'list', '--json');
    expect(JSON.parse(stdout).data.map((a: { name: string }) => a.name)).toContain('Shared');
    expect(await isRunning(clusterDir)).toBe(false);
  }, 60_000);

  it("a SIGKILLed owner's lease stops counting", async () => {
    const dataDir = path.join(tempRoot, 'killed-owner');
    const owner = holder(dataDir);
    const url = await owner.ready;
    await owner.kill();
    const clusterDir = path.join(dataDir, 'pg');
    clusterDirs.add(clusterDir);
    expect(await isRunning(clusterDir)).toBe(true);

    const next = await ensure(dataDir);
    expect(next.url).toBe(url);
    await next.release();
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('a holder SIGKILLed while it holds the lock leaves a stale lock the next caller breaks', async () => {
    const dataDir = path.join(tempRoot, 'killed-starter');
    const lockFile = path.join(dataDir, 'pg.lock');
    const starter = holder(dataDir);
    // A first start holds the lock for a second or more (initdb): kill the holder in the middle of it.
    await eventually(() => fs.access(lockFile).then(() => true), 15_000, 10);
    await starter.kill();
    expect(await fs.stat(lockFile)).toBeTruthy();

    const next = await ensure(dataDir);
    expect(await query(next.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await next.release();
    expect(await isRunning(next.clusterDir)).toBe(false);
    await expect(fs.access(lockFile)).rejects.toThrow();
  }, 60_000);
});

describe.skipIf(!isRoot)('as root, with a checkout the postgres user cannot reach', () => {
  it('places the cluster in a folder of its own and starts it', async () => {
    const privateParent = path.join(tempRoot, 'private');
    await fs.mkdir(privateParent, { mode: 0o700 });
    const dataDir = path.join(privateParent, 'data');
    await fs.mkdir(dataDir);
    const key = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);

    const handle = await ensure(dataDir);
    expect(handle.clusterDir).toBe(path.join('/var/lib/sched-embedded', key, 'pg'));
    expect(await query(handle.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect((await fs.stat(path.join(dataDir, 'pg-password'))).mode & 0o777).toBe(0o600);
    const cluster = await fs.stat(handle.clusterDir);
    expect(cluster.mode & 0o777).toBe(0o700);
    expect(cluster.uid).toBe(await postgresUid());
    await handle.release();
    expect(await isRunning(handle.clusterDir)).toBe(false);
  });

  it('copies binaries the postgres user cannot reach to a world-readable place, once', async () => {
    const owner = { uid: await postgresUid(), gid: Number((await exec('id', ['-g', 'postgres'])).stdout) };
    const source = await postgresBinaries(owner);
    const privateParent = path.join(tempRoot, 'private-bin');
    await fs.mkdir(privateParent, { mode: 0o700 });
    const dir = path.join(privateParent, 'native');
    await fs.cp(source, dir, { recursive: true, verbatimSymlinks: true });
    const sharedRoot = path.join(tempRoot, 'shared-root');

    // Concurrent callers: one copy wins the rename, the other uses it.
    const [a, b] = await Promise.all([
      postgresBinaries(owner, { dir, version: 'test' }, sharedRoot),
      postgresBinaries(owner, { dir, version: 'test' }, sharedRoot),
    ]);
    expect(a).toBe(path.join(sharedRoot, 'postgres-test'));
    expect(b).toBe(a);
    expect(await fs.readdir(sharedRoot)).toEqual(['postgres-test']);
    const { stdout } = await exec('runuser', [
      '-u',
      'postgres',
      '--',
      path.join(a, 'bin', 'postgres'),
      '--version',
    ]);
    expect(stdout).toMatch(/PostgreSQL\) 17\./);
  });
});
