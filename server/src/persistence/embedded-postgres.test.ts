import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureEmbeddedPostgres, resolvePostgresBinaries } from './embedded-postgres.js';

const isRoot = process.getuid?.() === 0;
const RELOCATED_ROOT = '/var/lib/sched-embedded';

let tempRoot: string;
const clusterDirs = new Set<string>();

beforeAll(async () => {
  tempRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'sched-epg-'));
  // mkdtemp makes a mode-700 folder; the ordinary cases need one the postgres user can enter.
  await fs.chmod(tempRoot, 0o755);
});

afterAll(async () => {
  for (const clusterDir of clusterDirs) await forceStop(clusterDir);
  for (const clusterDir of clusterDirs) {
    if (clusterDir.startsWith(RELOCATED_ROOT))
      await fs.rm(path.dirname(clusterDir), { recursive: true, force: true });
  }
  await fs.rm(tempRoot, { recursive: true, force: true });
});

async function ensure(dataDir: string, database?: string) {
  clusterDirs.add(await clusterDirOf(dataDir));
  return ensureEmbeddedPostgres({ dataDir, ...(database ? { database } : {}) });
}

/** Where the launcher puts the cluster: in dataDir, or under RELOCATED_ROOT when postgres cannot reach it. */
async function clusterDirOf(dataDir: string) {
  await fs.mkdir(dataDir, { recursive: true });
  if (!isRoot || reachableByPostgres(dataDir)) return path.join(dataDir, 'pg');
  const key = createHash('sha256')
    .update(await fs.realpath(dataDir))
    .digest('hex')
    .slice(0, 16);
  return path.join(RELOCATED_ROOT, key, 'pg');
}

function reachableByPostgres(dir: string) {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]);
    return true;
  } catch {
    return false;
  }
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, applicationName = 'test-probe') {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
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

/** Zombies count as gone: a detached postmaster's new parent (init) may be slow to reap it. */
function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

async function waitFor(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function isRunning(clusterDir: string) {
  const pid = await postmasterPid(clusterDir);
  return pid !== undefined && isAlive(pid);
}

async function forceStop(clusterDir: string) {
  const pid = await postmasterPid(clusterDir);
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
  await waitFor(() => !isAlive(pid), `postmaster ${pid} to stop`);
}

function portOf(url: string) {
  return new URL(url).port;
}

describe('ensureEmbeddedPostgres', () => {
  let dataDir: string;
  let clusterDir: string;

  beforeAll(async () => {
    dataDir = path.join(tempRoot, 'shared');
    clusterDir = await clusterDirOf(dataDir);
  });

  it('starts a cluster once for concurrent callers, with the expected settings', async () => {
    const [a, b] = await Promise.all([ensure(dataDir), ensure(dataDir)]);
    expect(a.url).toBe(b.url);
    expect(a.url).toMatch(/^postgres:\/\/sched:[^@]+@127\.0\.0\.1:\d+\/sched$/);

    const [row] = await query<{ db: string; max: string; fsync: string; sockets: string; tz: string }>(
      a.url,
      `SELECT current_database() AS db, current_setting('max_connections') AS max, current_setting('fsync') AS fsync,
              current_setting('unix_socket_directories') AS sockets, current_setting('TimeZone') AS tz`,
    );
    expect(row).toEqual({ db: 'sched', max: '200', fsync: 'on', sockets: '', tz: 'UTC' });

    const password = await fs.stat(path.join(dataDir, 'pg-password'));
    expect(password.mode & 0o777).toBe(0o600);
    const cluster = await fs.stat(clusterDir);
    expect(cluster.mode & 0o777).toBe(0o700);
    if (isRoot)
      expect(cluster.uid).toBe(Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));

    await a.release();
    await b.release();
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('shares the running instance and reuses it quickly', async () => {
    const first = await ensure(dataDir);
    const started = performance.now();
    const second = await ensure(dataDir);
    const elapsed = performance.now() - started;
    expect(portOf(second.url)).toBe(portOf(first.url));
    // The target is < 100 ms; the margin absorbs a loaded CI machine.
    expect(elapsed).toBeLessThan(500);

    const other = await ensure(dataDir, 'other_db');
    expect(portOf(other.url)).toBe(portOf(first.url));
    expect(await query<{ db: string }>(other.url, 'SELECT current_database() AS db')).toEqual([
      { db: 'other_db' },
    ]);

    await Promise.all([first.release(), second.release(), other.release()]);
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('keeps running while a sched connection is open, and the last release stops it', async () => {
    const first = await ensure(dataDir);
    const second = await ensure(dataDir);
    const user = new pg.Client({ connectionString: first.url, application_name: 'sched' });
    user.on('error', () => {});
    await user.connect();

    await first.release();
    await second.release();
    expect(await isRunning(clusterDir)).toBe(true);
    expect(await user.query('SELECT 1 AS one')).toMatchObject({ rows: [{ one: 1 }] });

    await user.end();
    await waitFor(async () => {
      const rows = await query(first.url, "SELECT 1 FROM pg_stat_activity WHERE application_name = 'sched'");
      return rows.length === 0;
    }, 'the sched backend to exit');

    const last = await ensure(dataDir);
    expect(portOf(last.url)).toBe(portOf(first.url));
    const pid = await postmasterPid(clusterDir);
    await last.release();
    await last.release(); // idempotent
    expect(pid !== undefined && isAlive(pid)).toBe(false);
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('keeps data across a restart and after postgres is killed', async () => {
    const first = await ensure(dataDir);
    await query(first.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES ($$survives$$)');
    await first.release();
    expect(await isRunning(clusterDir)).toBe(false);

    const second = await ensure(dataDir);
    expect(await query(second.url, 'SELECT value FROM kept')).toEqual([{ value: 'survives' }]);
    await query(second.url, 'INSERT INTO kept VALUES ($$committed before the crash$$)');

    const pid = await postmasterPid(clusterDir);
    if (pid === undefined) throw new Error('no postmaster.pid');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), 'the killed postmaster to exit');

    const third = await ensure(dataDir);
    expect(await query(third.url, 'SELECT value FROM kept ORDER BY value')).toEqual([
      { value: 'committed before the crash' },
      { value: 'survives' },
    ]);
    await second.release();
    await third.release();
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('reports the failing step and the log when the cluster cannot start', async () => {
    const broken = path.join(tempRoot, 'broken');
    const handle = await ensure(broken);
    await handle.release();
    const brokenCluster = await clusterDirOf(broken);
    await fs.appendFile(path.join(brokenCluster, 'postgresql.conf'), '\nshared_buffers = nonsense\n');
    await expect(ensure(broken)).rejects.toThrow(
      /pg_ctl start failed[\s\S]*last lines of[\s\S]*shared_buffers/,
    );
  });
});

describe.skipIf(!isRoot)('as root, with a checkout the postgres user cannot reach', () => {
  it('places the cluster in a folder of its own and starts it', async () => {
    const privateParent = path.join(tempRoot, 'private');
    await fs.mkdir(privateParent, { mode: 0o700 });
    await fs.chmod(privateParent, 0o700);
    const dataDir = path.join(privateParent, 'data');
    const clusterDir = await clusterDirOf(dataDir);
    expect(clusterDir.startsWith(RELOCATED_ROOT)).toBe(true);

    const handle = await ensure(dataDir);
    expect(await query(handle.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await fs.stat(path.join(dataDir, 'pg-password'))).toBeTruthy();
    const cluster = await fs.stat(clusterDir);
    expect(cluster.mode & 0o777).toBe(0o700);
    expect(cluster.uid).toBe(Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));
    await handle.release();
    expect(await isRunning(clusterDir)).toBe(false);
  });

  it('copies binaries the postgres user cannot reach to a world-readable cache, once', async () => {
    const source = await resolvePostgresBinaries();
    const privateParent = path.join(tempRoot, 'private-bin');
    await fs.mkdir(privateParent, { mode: 0o700 });
    await fs.chmod(privateParent, 0o700);
    const nativeDir = path.join(privateParent, 'native');
    await fs.cp(source.nativeDir, nativeDir, { recursive: true, verbatimSymlinks: true });
    const cacheRoot = path.join(tempRoot, 'cache');
    const owner = {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
    };

    // Concurrent callers: one copy wins the rename, the other uses it.
    const [a, b] = await Promise.all([
      resolvePostgresBinaries({ nativeDir, version: 'test', cacheRoot }, owner),
      resolvePostgresBinaries({ nativeDir, version: 'test', cacheRoot }, owner),
    ]);
    expect(a).toEqual(b);
    expect(a.postgres).toBe(path.join(cacheRoot, 'test', 'bin', 'postgres'));
    expect(await fs.readdir(cacheRoot)).toEqual(['test']);
    const version = execFileSync('runuser', ['-u', 'postgres', '--', a.postgres, '--version'], {
      encoding: 'utf8',
    });
    expect(version).toMatch(/PostgreSQL\) 17\./);
  });
});
