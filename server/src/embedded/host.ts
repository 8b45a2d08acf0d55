import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { exec, type PostgresOwner, postgresBinaries, runsAs, SHARED_ROOT } from './binaries.js';

/**
 * Where an embedded cluster lives and who runs it: its folders, the postgres system user (as root), the lock that
 * serializes attach, start and stop across processes, and the few process and file helpers they share.
 */

/** The lock holder refreshes it every half of this; a holder killed mid-way frees it after this long. */
const LOCK_STALE_MS = 10_000;
/** How long a start, a recovery or a stop is waited for. */
export const WAIT_MS = 60_000;

export type Layout = Awaited<ReturnType<typeof layoutOf>>;

export async function layoutOf(dataDir: string, log: (msg: string) => void) {
  const owner = await postgresOwner(log);
  let home = dataDir;
  if (owner && !(await runsAs(owner, 'test', ['-x', dataDir]))) {
    // A checkout under a mode-700 folder (root's home): the cluster lives in a folder of its own, keyed by
    // dataDir's real path; the password, lock and leases stay in dataDir.
    const key = createHash('sha256')
      .update(await fs.realpath(dataDir))
      .digest('hex')
      .slice(0, 16);
    home = path.join(SHARED_ROOT, key);
    log(`embedded PostgreSQL: the postgres user cannot reach ${dataDir}; the cluster lives in ${home}`);
  }
  return {
    dataDir,
    clusterDir: path.join(home, 'pg'),
    logFile: path.join(home, 'pg.log'),
    passwordFile: path.join(dataDir, 'pg-password'),
    leaseDir: path.join(dataDir, 'pg-leases'),
    /** holds bin/, lib/ and share/ */
    binaries: await postgresBinaries(owner),
    owner,
    log,
  };
}

/** As root, the `postgres` system user, created if missing (as the package's `createPostgresUser` does). */
async function postgresOwner(log: (msg: string) => void): Promise<PostgresOwner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const found = await lookupPostgresUser();
  if (found) return found;
  log('embedded PostgreSQL: creating the postgres system user');
  await exec('groupadd', ['--force', '--system', 'postgres']);
  const args = ['--system', '-g', 'postgres', '--no-create-home', '-s', '/usr/sbin/nologin', 'postgres'];
  await exec('useradd', args).catch((err: { code?: unknown }) => {
    if (err.code !== 9) throw err; // 9: another process created it meanwhile
  });
  const created = await lookupPostgresUser();
  if (!created) throw new Error('embedded PostgreSQL: could not create the postgres system user');
  return created;
}

async function lookupPostgresUser(): Promise<PostgresOwner | undefined> {
  try {
    const [uid, gid] = await Promise.all([exec('id', ['-u', 'postgres']), exec('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  } catch {
    return undefined;
  }
}

/** Serializes attach, start and stop on one data directory, across processes. */
export async function withLock<T>(layout: Layout, fn: () => Promise<T>): Promise<T> {
  const lockFile = path.join(layout.dataDir, 'pg.lock');
  const release = await lockfile.lock(layout.dataDir, {
    lockfilePath: lockFile,
    stale: LOCK_STALE_MS,
    // About three minutes: a start may wait for another process's crash recovery.
    retries: { retries: 800, minTimeout: 20, maxTimeout: 250 },
    onCompromised: (err) => layout.log(`embedded PostgreSQL: lost ${lockFile}: ${err.message}`),
  });
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

export async function readPostmasterPid(clusterDir: string) {
  const text = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  // Line 1 is the postmaster's pid, line 4 its port.
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  return pid > 0 && port > 0 ? { pid, port } : undefined;
}

export function isAlive(pid: number) {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

/** Error-message suffix: the last lines of the server log. */
export async function logTail(logFile: string) {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  return text.trim() ? `\n--- last lines of ${logFile} ---\n${tail(text)}` : '';
}

export function tail(text: string, lines = 20) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
