import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childOptions, exec } from './binaries.js';
import {
  freePort,
  type Layout,
  logTail,
  readPostmasterPid,
  isAlive,
  tail,
  WAIT_MS,
  withLock,
} from './host.js';

/**
 * The embedded PostgreSQL's processes: the cluster made once (initdb), the postmaster started detached, and the
 * watch that restarts it when it dies. Whether a server answers is asked through `answers` (a connection attempt,
 * which persistence/embedded-postgres.ts makes): this side runs processes and never speaks SQL.
 */

/** The cluster's superuser; the service connects as a role of its own (persistence/embedded-role.ts). */
export const SUPERUSER = 'sched';
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

/** The error connecting to the cluster on `port` gives, or undefined when it answers. */
export type Answers = (port: number) => Promise<unknown>;

/**
 * Watches the postmaster while the handle is open; when it has died (killed, crashed), restarts it on the same port
 * (so every URL handed out stays right), PostgreSQL replaying its WAL: committed work survives. Failed restarts are
 * retried with back-off. Under the lock, the first process to notice restarts it and the others find it running.
 */
export function supervise(
  layout: Layout,
  port: number,
  answers: Answers,
  alert: (msg: string) => void,
): () => void {
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
      await startServer(layout, answers, port);
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

export async function initCluster(layout: Layout) {
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
export async function startServer(layout: Layout, answers: Answers, fixedPort?: number): Promise<number> {
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
    while (await answers(port)) {
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
