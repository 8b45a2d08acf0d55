// Shared pieces of the benchmarks: a server stack per benchmark, an HTTP load loop, a loopback receiver, statistics.
// Plain Node ESM; the only libraries are those the server already depends on (pg, undici), loaded from there.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TMP = path.join(ROOT, 'bench', '.tmp');
// The driver's own libraries come from this checkout's server package, whichever build it measures.
const serverRequire = createRequire(path.join(ROOT, 'server', 'package.json'));
export const pg = serverRequire('pg');
export const { Pool: HttpPool } = serverRequire('undici');

/**
 * The server package of the checkout at `root` (this one, or a baseline's), loaded through its own `exports` (the
 * package resolving its own name), as the CLI loads it: what a build exposes, not its file layout.
 */
export async function serverPackage(root) {
  const entry = createRequire(path.join(root, 'server', 'package.json')).resolve('@sched/server');
  return import(pathToFileURL(entry).href);
}

/**
 * Wall-clock milliseconds with sub-millisecond resolution, on the clock of Date.now(): the one sched and the
 * baselines set due times on. `performance.timeOrigin + performance.now()` is not that clock: it is the wall clock
 * read once at the process's start and then the monotonic one, so once the system's time sync has adjusted the clock,
 * every lateness measured with it is off by the adjustment (one 20-minute run read them all 7 ms high: the bare timer's
 * median 8.3 ms against 0.7 in every other run). Here the monotonic clock is re-anchored whenever Date.now() (the wall
 * clock truncated to the millisecond) disagrees with it.
 */
let wallOffset = Date.now() + 0.5 - performance.now();
export const nowMs = () => {
  const before = Date.now();
  const p = performance.now();
  const t = p + wallOffset;
  // Only a read the wall clock did not tick across says where it stands: a process descheduled between the two reads
  // would otherwise pass its own delay for a move of the clock.
  if (Date.now() !== before || (t >= before && t < before + 1)) return t;
  // The least move that agrees with Date.now(): repeated reads narrow the offset to well under a millisecond.
  const moved = t < before ? before - t : before + 0.999 - t;
  wallOffset += moved;
  if (Math.abs(moved) > 2) log(`the wall clock moved by ${moved.toFixed(1)} ms: timestamps follow it`);
  return p + wallOffset;
};
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const log = (msg) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 23)}] ${msg}\n`);

/** The run's settings (run.mjs sets them from its flags); the defaults are those of a full run. */
export const settings = {
  seconds: 10, // create load per system; the spread of each lateness run is twice this
  rounds: 2,
  deliveries: 5_000,
  pending: Number(process.env.BENCH_PENDING ?? 1_000_000),
  logLevel: process.env.BENCH_LOG_LEVEL, // unset: sched's default level, as users run it
  smoke: false, // --smoke: tiny sizes and short leads, no timing goal
  /** @type {number[] | undefined} --rates: the lateness runs kept, by due a second (all when unset) */
  rates: undefined,
};

function gitLabel(root) {
  try {
    const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no') ? '+dirty' : '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  } catch {
    return path.basename(root);
  }
}

/**
 * The sched builds under test: this checkout ("sched"), and with BENCH_SCHED_ROOT other builds (e.g. worktrees of
 * older commits after `pnpm build`), measured in the same run so that each can be compared with this one as a pair.
 * BENCH_SCHED_ROOT is one root or several separated by commas, BENCH_REF_LABEL as many labels (a missing one is the
 * build's commit); the first reference is "ref", the next "ref2", "ref3"... A reference that is this checkout is run
 * again as a second system: a paired run of a build against itself measures the noise between two systems.
 */
export const BUILDS = [
  { key: 'sched', root: ROOT, label: `sched ${process.env.BENCH_LABEL ?? gitLabel(ROOT)}` },
  ...referenceBuilds(process.env.BENCH_SCHED_ROOT ?? '', process.env.BENCH_REF_LABEL),
];

/**
 * The reference builds of BENCH_SCHED_ROOT and BENCH_REF_LABEL: { key, root, label, name }, where `name` is the
 * label without "sched " (the build's object in the JSON of a run with several).
 * @param {string} roots
 * @param {string | undefined} labels
 */
function referenceBuilds(roots, labels) {
  const list = roots
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const names = labels === undefined ? [] : labels.split(',').map((l) => l.trim());
  if (names.length > Math.max(list.length, 1)) {
    process.stderr.write(`BENCH_REF_LABEL names ${names.length} builds, BENCH_SCHED_ROOT ${list.length}\n`);
    process.exit(2);
  }
  const builds = list.map((r, i) => {
    const root = path.resolve(r);
    const key = i ? `ref${i + 1}` : 'ref';
    if (root === ROOT) {
      const name = `${process.env.BENCH_LABEL ?? gitLabel(ROOT)} (again)`;
      return { key, root, label: `sched ${name}`, name, reference: true };
    }
    const name = names[i] || gitLabel(root);
    return { key, root, label: `sched ${name}`, name, reference: true };
  });
  const seen = new Set();
  for (const b of builds) {
    if (seen.has(b.name)) {
      process.stderr.write(
        `two reference builds are labelled '${b.name}': give BENCH_REF_LABEL one label each\n`,
      );
      process.exit(2);
    }
    seen.add(b.name);
  }
  return builds;
}

/**
 * The benchmarks a reference build could not run, { benchmark, build, reason }: an older build may lack what a
 * benchmark needs (a route, a setting, a column the seed writes). Its column reads n/a for that benchmark, and the
 * others are measured as usual; a failure of this checkout or of a baseline still fails the benchmark.
 * @type {{ benchmark?: string, build: string, reason: string }[]}
 */
export const unsupported = [];

/**
 * Runs `measure(system, round)` for every system in every round, alternating the order (forward, then backward)
 * so that neither side always runs first on a machine whose load drifts. Returns { [system.key]: [result per round] };
 * a reference build that fails is left out of the result and of the later rounds, and listed in `unsupported`.
 */
export async function inRounds(systems, measure) {
  const out = Object.fromEntries(systems.map((s) => [s.key, []]));
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 ? [...systems].reverse() : systems;
    for (const system of order) {
      if (!(system.key in out)) continue;
      log(`round ${round + 1}/${settings.rounds}: ${system.label}`);
      try {
        out[system.key].push({ round: round + 1, ...(await measure(system, round)) });
      } catch (err) {
        if (!system.reference) throw err;
        const reason = String(err?.message ?? err).split('\n')[0];
        log(`${system.label} cannot run this benchmark, left out of it: ${reason}`);
        unsupported.push({ build: system.label, reason });
        delete out[system.key];
      }
    }
  }
  return out;
}

/**
 * The one PostgreSQL of a run: an embedded PostgreSQL 17 (this checkout's launcher) in bench/.tmp, or the server of
 * BENCH_DATABASE_URL (a role that may create databases). Every system gets a fresh database on it.
 */
export async function startPostgres() {
  const dataDir = path.join(TMP, `pg-${Date.now()}`);
  /** @type {any} */
  const server = { dataDir, cleanups: [], databases: 0 };
  if (process.env.BENCH_DATABASE_URL) {
    server.url = process.env.BENCH_DATABASE_URL;
  } else {
    await fs.mkdir(dataDir, { recursive: true });
    const { ensureEmbeddedPostgres } = await serverPackage(ROOT);
    let handle = await ensureEmbeddedPostgres({ dataDir });
    // pg_stat_statements counts each system's statements, rows and WAL (pgCost below): a preloaded library, so the
    // fresh cluster is started once more with it.
    if (!process.env.BENCH_NO_STATEMENTS) {
      // A cluster this run started must not outlive a failure here (it would keep running, orphaned).
      try {
        const c = new pg.Client({ connectionString: urlFor(handle.adminUrl ?? handle.url, 'postgres') });
        await c.connect();
        // BENCH_EXPLAIN=<ms>: auto_explain writes the plan (analyzed, with buffers) of every statement slower than that
        // to the cluster's pg.log, for a statement the per-statement table shows to be costly.
        const explain = process.env.BENCH_EXPLAIN;
        await c.query(
          `alter system set shared_preload_libraries = ${explain ? `'pg_stat_statements', 'auto_explain'` : `'pg_stat_statements'`}`,
        );
        // Plans per call: a statement re-planned on every call costs CPU that its execution time does not show.
        await c.query(`alter system set pg_stat_statements.track_planning = on`);
        if (explain) {
          for (const [k, v] of [
            ['auto_explain.log_min_duration', `${Number(explain)}ms`],
            ['auto_explain.log_analyze', 'on'],
            ['auto_explain.log_buffers', 'on'],
            ['auto_explain.log_nested_statements', 'on'],
          ])
            await c.query(`alter system set ${k} = '${v}'`);
        }
        await c.end();
      } catch (err) {
        await handle.release().catch(() => undefined);
        throw err;
      }
      await handle.release();
      handle = await ensureEmbeddedPostgres({ dataDir });
    }
    // The cluster's superuser (a launcher that gives the service a role of its own also answers `adminUrl`): the run
    // creates a database per system, reads every database's statistics and WAL, and its servers run as that role.
    server.url = handle.adminUrl ?? handle.url;
    server.clusterDir = handle.clusterDir;
    server.cleanups.push(async () => {
      try {
        await handle.release();
      } catch (err) {
        // Stop our own cluster anyway (SIGINT = fast shutdown), or it would outlive the benchmark.
        log(`releasing the embedded PostgreSQL failed (${err.message}); stopping it directly`);
        await stopPostmaster(server.clusterDir);
      }
      if (process.env.BENCH_KEEP) return;
      await fs.rm(dataDir, { recursive: true, force: true });
      if (!server.clusterDir.startsWith(dataDir)) {
        await fs.rm(path.dirname(server.clusterDir), { recursive: true, force: true });
      }
    });
  }
  server.admin = new pg.Pool({ connectionString: urlFor(server.url, 'postgres'), max: 2 });
  server.admin.on('error', () => undefined);
  server.cleanups.push(() => server.admin.end());
  server.statements = await server.admin
    .query('create extension if not exists pg_stat_statements')
    .then(() => server.admin.query('select 1 from pg_stat_statements limit 1'))
    .then(
      () => true,
      (err) => {
        log(`no pg_stat_statements (${err.message}): PostgreSQL's cost per unit of work is not reported`);
        return false;
      },
    );
  server.walinspect = await server.admin.query('create extension if not exists pg_walinspect').then(
    () => true,
    (err) => {
      log(`no pg_walinspect (${err.message}): non-HOT updates and WAL by table are not reported`);
      return false;
    },
  );
  /** A fresh database; its URL, and a function that drops it. */
  server.createDatabase = async (name) => {
    const db = `bench_${name.replace(/\W/g, '_')}_${++server.databases}`;
    await server.admin.query(`drop database if exists ${db} with (force)`);
    await server.admin.query(`create database ${db}`);
    return {
      name: db,
      url: urlFor(server.url, db),
      drop: () => server.admin.query(`drop database if exists ${db} with (force)`),
    };
  };
  server.stop = async () => {
    for (const fn of server.cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
    server.cleanups.length = 0;
  };
  return server;
}

function urlFor(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs the cleanups of a stack in reverse order; every stack has one. */
function stopper(cleanups) {
  return async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
    cleanups.length = 0;
  };
}

/**
 * One sched server of `build` ('all' role: API and worker in one process, as `sched serve` runs by default) on a
 * fresh database of the run's PostgreSQL, with its own account (plan business, rate limits multiplied away but
 * still counted).
 */
/**
 * How sched runs (BENCH_ROLES): one `serve --role all` process (the default), the API and the worker as two
 * processes (`split`), or two API and two worker processes over the one database (`2x2`, the README's scale-out).
 */
const ROLE_LAYOUTS = {
  all: { label: 'all (one process)', roles: ['all'] },
  split: { label: 'api + worker (two processes)', roles: ['api', 'worker'] },
  '2x2': { label: 'api x2 + worker x2 (four processes)', roles: ['api', 'api', 'worker', 'worker'] },
  // Claims per delivery with four workers sharing the due set.
  '1x4': {
    label: 'api + worker x4 (five processes)',
    roles: ['api', 'worker', 'worker', 'worker', 'worker'],
  },
};

export function roleLayout() {
  const name = process.env.BENCH_ROLES ?? 'all';
  const layout = ROLE_LAYOUTS[name];
  if (!layout) throw new Error(`BENCH_ROLES=${name}: use one of ${Object.keys(ROLE_LAYOUTS).join(', ')}`);
  return layout;
}

export async function startStack(name, build, postgres) {
  const dataDir = path.join(TMP, `${name}-${build.key}-${Date.now()}`);
  await fs.mkdir(dataDir, { recursive: true });
  const cleanups = [];
  const stack = {
    name,
    label: build.label,
    root: build.root,
    dataDir,
    cleanups,
    clusterDir: postgres.clusterDir,
    postgres,
  };
  stack.stop = stopper(cleanups);
  try {
    const database = await postgres.createDatabase(`${name}_${build.key}`);
    cleanups.push(async () => {
      await database.drop();
      if (process.env.BENCH_KEEP) return;
      // The server's log outlives the run, for a look after a surprising figure.
      await fs.mkdir(path.join(TMP, 'logs'), { recursive: true });
      for (const file of await fs.readdir(dataDir)) {
        const to = path.join(TMP, 'logs', `${path.basename(dataDir)}-${file}`);
        if (file.endsWith('.log')) await fs.copyFile(path.join(dataDir, file), to);
      }
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    stack.databaseUrl = database.url;
    stack.databaseName = database.name;

    const port = await freePort();
    // Response validation off, as deployed (see serverMode).
    const mode = await serverMode(build.root);
    stack.nodeEnv = mode.nodeEnv;
    /** @type {NodeJS.ProcessEnv} */
    const serverEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      SCHED_DATA_DIR: dataDir,
      SCHED_RATE_LIMIT_FACTOR: '100000',
      ...mode.env,
    };
    // The server's default log level unless BENCH_LOG_LEVEL / --log-level says otherwise: users run it that way.
    if (settings.logLevel) serverEnv.LOG_LEVEL = settings.logLevel;
    else delete serverEnv.LOG_LEVEL;
    const cli = path.join(build.root, 'cli', 'dist', 'bin.js');
    const layout = roleLayout();
    stack.roles = layout.label;
    stack.pids = [];
    stack.urls = [];
    for (const [i, role] of layout.roles.entries()) {
      // Each API process listens on a port of its own; the load generator spreads requests over them.
      const env = role === 'worker' || i === 0 ? serverEnv : { ...serverEnv, PORT: String(await freePort()) };
      const server = await spawnServer(cli, role, env, dataDir, cleanups, `${role}-${i}`);
      stack.pids.push(server.pid);
      if (role !== 'worker') stack.urls.push(server.url);
    }
    stack.url = stack.urls[0];

    const created = JSON.parse(
      await runCli(
        cli,
        [
          'accounts',
          'create',
          '--name',
          `bench ${name}`,
          '--plan',
          'business',
          '--rate-limit-factor',
          '100000',
          '--json',
        ],
        serverEnv,
      ),
    );
    stack.accountId = created.account.id;
    /** `sched <args>` of this build against the stack's database (admin verbs such as `purge`). */
    stack.cli = (args) => runCli(cli, args, serverEnv);
    stack.apiKey = created.api_key;
    await attachClients(stack, cleanups);
    if (!auditsCreates()) await recordCreates(stack, false);
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/** Whether the stacks record each create's audit event (the default; BENCH_AUDIT_CREATES=0 turns it off). */
export const auditsCreates = () => process.env.BENCH_AUDIT_CREATES !== '0';

/**
 * Turns the audit event of each create (`action.create`, a data event on by default: docs/audit.md) on or off for
 * the stack's account: off for a whole run with BENCH_AUDIT_CREATES=0, to measure what the event costs, and off
 * while a delivery burst's actions are created (bench/phases.mjs `deliveryBurst`). A build from before the setting
 * answers 404 and records every create anyway.
 */
export async function recordCreates(stack, on) {
  const res = await fetch(`${stack.url}/v1/audit-events/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action_create: on }),
  });
  if (res.status !== 200 && res.status !== 404)
    throw new Error(`audit settings: ${res.status} ${await res.text()}`);
}

async function attachClients(stack, cleanups) {
  if (stack.databaseUrl) {
    stack.db = new pg.Pool({ connectionString: stack.databaseUrl, max: 4, application_name: 'bench' });
    stack.db.on('error', () => undefined);
    cleanups.push(() => stack.db.end());
  }
  if (stack.url) {
    const pools = (stack.urls ?? [stack.url]).map(
      (url) => new HttpPool(url, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 }),
    );
    // Several API processes (BENCH_ROLES=2x2): requests go to each in turn.
    let turn = 0;
    stack.api =
      pools.length === 1
        ? pools[0]
        : { request: (opts) => pools[turn++ % pools.length].request(opts), close: async () => undefined };
    cleanups.push(() => Promise.all(pools.map((p) => p.close())));
  }
}

/**
 * A baseline (bench/baselines/<role>.mjs) as a child process, on a fresh database of the run's PostgreSQL unless
 * `withDatabase` is false. It answers with one JSON line once ready; `withHttp` gives it a port and the stack an
 * HTTP pool to it.
 */
export async function startBaseline(
  role,
  label,
  postgres,
  { withHttp = false, withDatabase = true, args = {} } = {},
) {
  const cleanups = [];
  const stack = { name: role, label, cleanups, clusterDir: postgres.clusterDir, postgres, apiKey: null };
  stack.stop = stopper(cleanups);
  try {
    if (withDatabase) {
      const database = await postgres.createDatabase(role);
      cleanups.push(() => database.drop());
      stack.databaseUrl = database.url;
      stack.databaseName = database.name;
    }
    const port = withHttp ? await freePort() : undefined;
    const argv = Object.entries({ ...args, db: stack.databaseUrl, ...(port ? { port } : {}) }).flatMap(
      ([k, v]) => (v === undefined ? [] : [`--${k}`, String(v)]),
    );
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'baselines', `${role}.mjs`), ...argv], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => stopChild(child));
    stack.pids = [child.pid];
    stack.message = await firstLine(child, `baseline ${role}`);
    child.stdout.resume();
    if (port) stack.url = `http://127.0.0.1:${port}`;
    await attachClients(stack, cleanups);
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

/** The first JSON line a child writes to stdout (its "ready"), or an error when it exits or takes 90 s. */
function firstLine(child, what) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} was not ready in 90 s`)), 90_000);
    const onExit = (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready`));
    };
    child.once('exit', onExit);
    const onData = (chunk) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout.off('data', onData);
      resolve(JSON.parse(out.slice(0, nl)));
    };
    child.stdout.on('data', onData);
  });
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  await exited;
  clearTimeout(killer);
}

/** Resident set size of a process in MiB (Linux /proc), or null. */
export async function rssMiB(pid) {
  try {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return null;
  }
}

/**
 * A live process's parent, its CPU seconds so far (user and system) and those of the children it has reaped, from
 * /proc/<pid>/stat; null when it is gone (or not on Linux).
 * @param {number | string} pid
 */
export async function procStat(pid) {
  const tick = 100; // USER_HZ: 100 on every Linux this runs on
  try {
    const text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(f[1]),
      cpu: (Number(f[11]) + Number(f[12])) / tick,
      reaped: (Number(f[13]) + Number(f[14])) / tick,
    };
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by the server processes, by PostgreSQL and by this benchmark process. PostgreSQL's total is
 * the postmaster's own CPU, the CPU of the children it has already reaped (cutime/cstime: backends and autovacuum
 * workers that exited) and that of every live child, so its difference between two snapshots counts a backend that
 * exited in between. Live backends are also named by the pool they serve (`application_name`), so claims, records,
 * creates and seals can be told apart. Linux /proc only; null where unknown.
 */
export async function cpuSnapshot(stack) {
  const readStat = procStat;
  /** @type {number | null} */
  let server = 0;
  for (const pid of stack.pids) {
    const cpu = (await readStat(pid))?.cpu;
    if (cpu === undefined) server = null;
    else if (server !== null) server += cpu;
  }
  /** @type {Map<number, number> | null} */
  let postgres = null;
  /** @type {number | null} */
  let postgresTotal = null;
  /** @type {Map<number, string>} */
  const pools = new Map();
  if (stack.clusterDir) {
    try {
      const text = await fs.readFile(path.join(stack.clusterDir, 'postmaster.pid'), 'utf8');
      const postmaster = Number(text.split('\n')[0]);
      const own = await readStat(postmaster);
      postgres = new Map();
      postgresTotal = (own?.cpu ?? 0) + (own?.reaped ?? 0);
      for (const name of await fs.readdir('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        const st = await readStat(name);
        if (st && st.ppid === postmaster) {
          postgres.set(Number(name), st.cpu);
          postgresTotal += st.cpu;
        }
      }
    } catch {}
    if (stack.postgres?.admin) {
      const { rows } = await stack.postgres.admin
        .query(
          'select pid, application_name as app, datname from pg_stat_activity where pid <> pg_backend_pid()',
        )
        .catch(() => ({ rows: [] }));
      for (const r of rows) pools.set(r.pid, poolOf(r.app, r.datname, stack.databaseName));
    }
  }
  const u = process.cpuUsage();
  return {
    at: nowMs(),
    server,
    postgres,
    postgresTotal,
    pools,
    bench: (u.user + u.system) / 1e6,
    load: os.loadavg()[0],
  };
}

/**
 * The pool a PostgreSQL backend serves, from its application_name: `sched-<role>-<pool>` (claims, firing = records,
 * counters, audit = seals, queue = pg-boss), `sched-<role>` (main: creates and the API), a baseline's or the
 * benchmark's own; backends of another database and background processes are "other".
 */
function poolOf(app, datname, databaseName) {
  if (databaseName && datname !== databaseName) return 'other';
  const m = /^sched-(?:all|api|worker)(?:-(\w+))?$/.exec(app ?? '');
  if (m) return m[1] ?? 'main';
  if (app === 'bench') return 'bench';
  return app ? 'client' : 'other';
}

/**
 * Percent of one core each part used between two snapshots. PostgreSQL counts every process of the cluster,
 * exited ones included; `pools` splits the backends alive at the end by the pool they serve (CPU seconds; a backend
 * that exited meanwhile is in PostgreSQL's total but in no pool).
 */
export function cpuShare(a, b) {
  const s = (b.at - a.at) / 1000;
  const pct = (x, y) => (x === null || y === null ? null : (100 * (y - x)) / s);
  /** @type {Record<string, number>} */
  const pools = {};
  if (a.postgres && b.postgres) {
    for (const [pid, cpu] of b.postgres) {
      const pool = b.pools.get(pid) ?? a.pools.get(pid) ?? 'other';
      pools[pool] = (pools[pool] ?? 0) + cpu - (a.postgres.get(pid) ?? 0);
    }
  }
  return {
    server: pct(a.server, b.server),
    postgres: pct(a.postgresTotal, b.postgresTotal),
    pools,
    bench: pct(a.bench, b.bench),
    load1: b.load,
    seconds: s,
  };
}

/**
 * PostgreSQL's work for one system during a phase, from pg_stat_statements (its database's statements only), the
 * WAL (the whole cluster, in which only that system runs) and pg_walinspect (each WAL record by the table it writes,
 * of that system's database): `pgMark` at the start resets the counts, and `pgCost` at the end divides them by the
 * units of work done (deliveries, creates). Null without pg_stat_statements.
 */
export async function pgMark(stack) {
  const pgs = stack.postgres;
  if (!pgs?.statements || !stack.databaseName) return null;
  await pgs.admin.query(
    'select pg_stat_statements_reset(0, (select oid from pg_database where datname = $1), 0)',
    [stack.databaseName],
  );
  const { rows } = await pgs.admin.query(
    'select pg_current_wal_lsn()::text as lsn, wal_records::float8 as records, wal_fpi::float8 as fpi from pg_stat_wal',
  );
  return { stack, lsn: rows[0].lsn, walRecords: rows[0].records, walFpi: rows[0].fpi };
}

/**
 * Per unit: statements, plans, rows, execution ms, WAL bytes (all and of statements), WAL records and full-page
 * images, non-HOT and HOT updates and b-tree entries (from the WAL records of the system's database), WAL bytes by
 * table, and the statements by calls.
 */
export async function pgCost(mark, units) {
  if (!mark || !units) return null;
  const { admin } = mark.stack.postgres;
  const { rows } = await admin.query(
    `select regexp_replace(left(query, 400), '\\s+', ' ', 'g') as query, calls::float8, plans::float8, rows::float8,
            total_exec_time::float8 as ms, total_plan_time::float8 as plan_ms, wal_bytes::float8 as wal,
            wal_fpi::float8 as fpi
       from pg_stat_statements where dbid = (select oid from pg_database where datname = $1)
      order by calls desc`,
    [mark.stack.databaseName],
  );
  const wal = await admin.query(
    `select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8 as bytes, pg_current_wal_lsn()::text as lsn,
            wal_records::float8 as records, wal_fpi::float8 as fpi from pg_stat_wal`,
    [mark.lsn],
  );
  const total = (k) => rows.reduce((n, r) => n + r[k], 0) / units;
  // A worker's claim of its share answers one row per attempt it claimed and one for a claim of nothing, so its rows
  // count claims, empty ones too (server/src/persistence/deliveries.ts); claims by id (held attempts, the careful
  // path) count by statement.
  const shareClaims = rows.filter((r) => /^with candidate as/.test(r.query));
  const claims = shareClaims.reduce((n, r) => n + r.rows, 0);
  const idClaims = rows.filter((r) => /^with held as/.test(r.query)).reduce((n, r) => n + r.calls, 0);
  const records = await walRecords(mark, wal.rows[0].lsn);
  return {
    units,
    statements: total('calls'),
    plans: total('plans'),
    planMs: total('plan_ms'),
    rows: total('rows'),
    execMs: total('ms'),
    walBytes: wal.rows[0].bytes / units,
    walRecords: (wal.rows[0].records - mark.walRecords) / units,
    walFullPages: (wal.rows[0].fpi - mark.walFpi) / units,
    nonHotUpdates: records && records.nonHotUpdates / units,
    hotUpdates: records && records.hotUpdates / units,
    indexEntries: records && records.indexEntries / units,
    walBytesByTable:
      records &&
      Object.fromEntries(Object.entries(records.bytesByTable).map(([t, bytes]) => [t, bytes / units])),
    walByRecord:
      records &&
      Object.fromEntries(
        Object.entries(records.byRecord).map(([k, r]) => [k, { n: r.n / units, bytes: r.bytes / units }]),
      ),
    // Only for a build whose workers claim their share this way (an older one claims by id, per trigger).
    claims: shareClaims.length ? (claims + idClaims) / units : undefined,
    statementWalBytes: total('wal'),
    fullPageImages: total('fpi'),
    // BENCH_TOP: how many statements the breakdown keeps (12 by default), to see the whole of an idle window.
    top: rows.slice(0, Number(process.env.BENCH_TOP) || 12).map((r) => ({
      calls: r.calls / units,
      rows: r.rows / units,
      ms: r.ms / units,
      wal: r.wal / units,
      fpi: r.fpi / units,
      query: r.query,
    })),
  };
}

/**
 * The WAL records written for one system's database between the mark and `endLsn` (pg_walinspect): heap updates
 * that were not HOT, HOT ones, b-tree leaf inserts (index entries), and the bytes of the records by the table they
 * write (an index or TOAST record counts for its table). Null when pg_walinspect is missing.
 */
async function walRecords(mark, endLsn) {
  const { admin, walinspect } = mark.stack.postgres;
  if (!walinspect || !mark.stack.db) return null;
  // No WAL flushed since the mark (an idle window may write none): nothing to read, and pg_walinspect would fail.
  const flushed = await admin.query('select pg_current_wal_flush_lsn() > $1::pg_lsn as more', [mark.lsn]);
  if (!flushed.rows[0].more)
    return { nonHotUpdates: 0, hotUpdates: 0, indexEntries: 0, bytesByTable: {}, byRecord: {} };
  const names = await mark.stack.db.query(
    `select pg_relation_filenode(c.oid)::text as node, coalesce(t.relname, o.relname, c.relname) as table,
            c.relnamespace = 'pg_catalog'::regnamespace as catalog
       from pg_class c
       left join pg_index i on i.indexrelid = c.oid
       left join pg_class t on t.oid = i.indrelid
       left join pg_class o on o.reltoastrelid = c.oid or o.reltoastrelid = t.oid
      where pg_relation_filenode(c.oid) is not null`,
  );
  const table = new Map(names.rows.map((r) => [r.node, r.table]));
  // Updates and index entries are counted on the database's own tables, as pg_stat_user_tables counts them: the
  // catalogs' (pg_statistic rows an autovacuum ANALYZE rewrites inside the window) are PostgreSQL's, not a unit's.
  // Their WAL still counts, by table.
  const catalog = new Set(names.rows.filter((r) => r.catalog).map((r) => r.node));
  const { rows } = await admin.query(
    `with b as (
       select distinct start_lsn, relfilenode, resource_manager as rm, record_type as type, record_length as len
         from pg_get_wal_block_info($1::pg_lsn, least($2::pg_lsn, pg_current_wal_flush_lsn()), false)
        where reldatabase = (select oid from pg_database where datname = $3))
     select relfilenode::text as node, rm, type, count(*)::float8 as n, sum(len)::float8 as bytes
       from b group by 1, 2, 3`,
    [mark.lsn, endLsn, mark.stack.databaseName],
  );
  const out = {
    nonHotUpdates: 0,
    hotUpdates: 0,
    indexEntries: 0,
    /** @type {Record<string, number>} */ bytesByTable: {},
    /** Records by table and kind (`actions Heap/UPDATE`): how many, and their bytes. */
    /** @type {Record<string, { n: number, bytes: number }>} */ byRecord: {},
  };
  for (const r of rows) {
    const own = !catalog.has(r.node);
    if (own && r.rm === 'Heap' && /^UPDATE/.test(r.type)) out.nonHotUpdates += r.n;
    if (own && r.rm === 'Heap' && /^HOT_UPDATE/.test(r.type)) out.hotUpdates += r.n;
    if (own && r.rm === 'Btree' && /^INSERT_LEAF/.test(r.type)) out.indexEntries += r.n;
    const name = table.get(r.node) ?? 'other';
    out.bytesByTable[name] = (out.bytesByTable[name] ?? 0) + r.bytes;
    const kind = `${name} ${r.rm}/${r.type.split(' ')[0]}`;
    const seen = out.byRecord[kind] ?? { n: 0, bytes: 0 };
    out.byRecord[kind] = { n: seen.n + r.n, bytes: seen.bytes + r.bytes };
  }
  return out;
}

/** PostgreSQL's CPU milliseconds per unit, from its share of a core over the phase. */
export const pgCpuMs = (cpu, units) =>
  cpu?.postgres == null || !units ? null : ((cpu.postgres / 100) * cpu.seconds * 1000) / units;

/** The CPU milliseconds per unit of the system (its server processes and PostgreSQL), from their shares of a core. */
export const cpuMsPerUnit = (cpu, units) =>
  cpu?.postgres == null || cpu.server == null || !units
    ? null
    : (((cpu.postgres + cpu.server) / 100) * cpu.seconds * 1000) / units;

/** PostgreSQL's CPU milliseconds per unit by the pool its backends serve (see `cpuSnapshot`). */
export const poolCpuMs = (cpu, units) =>
  Object.fromEntries(
    Object.entries(cpu?.pools ?? {}).map(([pool, seconds]) => [pool, (seconds * 1000) / units]),
  );

/** "2.1 statements, 3.0 rows, 0.04 ms executing, 1,234 B of WAL, 0.08 ms of CPU per delivery" */
export function pgCostText(cost, cpu, unit) {
  const cpuMs = pgCpuMs(cpu, cost?.units);
  if (!cost) return cpuMs == null ? '-' : `${fmt(cpuMs, 3)} ms of PostgreSQL CPU per ${unit}`;
  const pools = Object.entries(poolCpuMs(cpu, cost.units))
    .filter(([, ms]) => ms >= 0.0005)
    .map(([pool, ms]) => `${pool} ${fmt(ms, 3)}`)
    .join(', ');
  const tables = Object.entries(cost.walBytesByTable ?? {})
    .filter(([, b]) => b >= 1)
    .sort((x, y) => y[1] - x[1])
    .map(([t, b]) => `${t} ${fmt(b, 0)}`)
    .join(', ');
  // What the largest tables' bytes are made of: the records of each kind, per unit.
  const kinds = Object.entries(cost.walByRecord ?? {})
    .filter(([, r]) => r.bytes >= 20)
    .sort((x, y) => y[1].bytes - x[1].bytes)
    .map(([k, r]) => `${k} ${fmt(r.n, 2)} ${fmt(r.bytes, 0)}`)
    .join(', ');
  return (
    `PostgreSQL per ${unit}: ${fmt(cost.statements, 2)} statements (${fmt(cost.plans, 2)} plans), ` +
    `${fmt(cost.rows, 2)} rows, ` +
    (cost.nonHotUpdates == null
      ? ''
      : `${fmt(cost.nonHotUpdates, 2)} non-HOT + ${fmt(cost.hotUpdates, 2)} HOT updates, ` +
        `${fmt(cost.indexEntries, 2)} index entries, `) +
    (cost.claims ? `${fmt(cost.claims, 3)} claims, ` : '') +
    `${fmt(cost.execMs, 3)} ms executing, ${fmt(cost.walBytes, 0)} B of WAL ` +
    `(${fmt(cost.statementWalBytes, 0)} B by statements, ${fmt(cost.walFullPages, 2)} full pages), ` +
    `${fmt(cpuMs, 3)} ms of CPU` +
    (pools ? `\n      CPU ms by pool: ${pools}` : '') +
    (tables ? `\n      WAL B by table: ${tables}` : '') +
    (kinds ? `\n      WAL records per ${unit} (count, B): ${kinds}` : '')
  );
}

/** The statements of a phase by calls per unit (BENCH_STATEMENTS=1 prints them). */
export function printStatements(title, cost, unit) {
  if (!cost || !process.env.BENCH_STATEMENTS) return;
  table(
    `${title}: statements per ${unit}`,
    ['calls', 'rows', 'ms', 'WAL B', 'full pages', 'statement'],
    cost.top.map((t) => [
      fmt(t.calls, 3),
      fmt(t.rows, 3),
      fmt(t.ms, 4),
      fmt(t.wal, 0),
      fmt(t.fpi, 3),
      t.query.slice(0, 140),
    ]),
  );
}

/**
 * How the servers of a build run: BENCH_NODE_ENV, else production as deployed (response validation off, the SSRF
 * guard on), with loopback named as an allowed private network so the receivers on 127.0.0.1 can be reached. A build
 * older than SCHED_ALLOWED_PRIVATE_NETWORKS cannot reach them in production: it runs in development with private
 * destinations allowed and SCHED_VALIDATE_RESPONSES=false, which costs what production costs; a build older than that
 * setting validates its responses, and the header of the run says so.
 * @returns {Promise<{ nodeEnv: string, validateResponses: boolean, env: Record<string, string> }>}
 */
export async function serverMode(root) {
  const forced = process.env.BENCH_NODE_ENV;
  const { loadConfig } = await serverPackage(root);
  const production = { NODE_ENV: 'production', SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1' };
  const development = { NODE_ENV: forced ?? 'development', SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true' };
  if (forced === undefined || forced === 'production') {
    try {
      // A build that does not know the variable ignores it, and would refuse the loopback receivers.
      if (loadConfig(production).allowPrivateDestinations)
        return { nodeEnv: 'production', validateResponses: false, env: production };
    } catch {}
  }
  if (forced) return { nodeEnv: forced, validateResponses: forced !== 'production', env: development };
  const env = { ...development, SCHED_VALIDATE_RESPONSES: 'false' };
  return { nodeEnv: 'development', validateResponses: loadConfig(env).validateResponses !== false, env };
}

/** Starts `sched serve --role <role>` and resolves once it is up (its URL, when it serves HTTP). */
async function spawnServer(cli, role, env, dataDir, cleanups, name = role) {
  const logFile = await fs.open(path.join(dataDir, `server-${name}.log`), 'a');
  const child = spawn(process.execPath, [cli, 'serve', '--role', role], {
    env,
    stdio: ['ignore', 'pipe', logFile.fd],
  });
  const stdout = /** @type {import('node:stream').Readable} */ (child.stdout);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(killer);
    }
    await logFile.close();
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`sched ${role} did not start in 90 s; see ${dataDir}/server-${role}.log`)),
      90_000,
    );
    stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)|started/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `sched ${role} exited (${code ?? signal}) before it was up; see ${dataDir}/server-${role}.log`,
        ),
      );
    });
  });
  stdout.resume();
  return { pid: child.pid, url };
}

function runCli(cli, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errOut = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (errOut += c));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`sched ${args.join(' ')} failed (${code}): ${errOut}`)),
    );
  });
}

async function stopPostmaster(clusterDir) {
  const text = await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  if (!pid) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** POST /v1/actions; resolves to { status, body }. */
export async function createAction(stack, payload) {
  const res = await stack.api.request({
    path: '/v1/actions',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(stack.apiKey ? { authorization: `Bearer ${stack.apiKey}` } : {}),
    },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text };
}

/**
 * Runs `concurrency` loops, each sending one request after another, until `durationMs` passes or `count` requests
 * were started. Latency is measured per request from send to full response body.
 */
export async function loadLoop({ concurrency, durationMs = Infinity, count = Infinity, send }) {
  const latencies = [];
  const statuses = new Map();
  const errors = new Map();
  let started = 0;
  const t0 = nowMs();
  const deadline = t0 + durationMs;
  const worker = async () => {
    while (started < count && nowMs() < deadline) {
      const i = started++;
      const t = nowMs();
      try {
        const { status } = await send(i);
        latencies.push(nowMs() - t);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      } catch (err) {
        const key = err.code ?? err.message;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = nowMs() - t0;
  return { latencies, statuses, errors, elapsedMs, completed: latencies.length };
}

/**
 * A loopback webhook receiver. Every request's arrival time (first byte of the request head parsed) is recorded
 * with its action id and the due time the benchmark put in the body. With `tls` ({ key, cert }) it serves https and
 * counts TLS handshakes and resumed sessions; `answer(body)` picks each response's status (200 by default).
 * Requests to /callback are sched's callbacks: counted apart, not as deliveries.
 * @param {{ tls?: { key: string, cert: string }, answer?: (body: any) => number }} [options]
 */
export async function startReceiver({ tls, answer } = {}) {
  /** @type {{ id: string, due: number, at: number }[]} */
  const arrivals = [];
  /** @type {Map<string, number>} */
  const seen = new Map();
  /** @type {{ pred: () => boolean, resolve: () => void }[]} */
  let waiters = [];
  const counts = { callbacks: 0, handshakes: 0, resumed: 0, requests: 0 };
  const wake = () => {
    if (!waiters.length) return;
    const still = [];
    for (const w of waiters) w.pred() ? w.resolve() : still.push(w);
    waiters = still;
  };
  /** @type {import('node:http').RequestListener} */
  const listener = (req, res) => {
    const at = nowMs();
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/callback') {
        counts.callbacks += 1;
        res.writeHead(200).end();
        wake();
        return;
      }
      counts.requests += 1;
      const id = String(req.headers['x-sched-action-id']);
      let parsed = {};
      try {
        parsed = JSON.parse(body);
      } catch {}
      const due = Number(parsed.due);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      arrivals.push({ id, due, at });
      res.writeHead(answer ? answer(parsed) : 200, { 'content-type': 'text/plain' }).end('ok');
      wake();
    });
  };
  const server = tls ? https.createServer({ ...tls }, listener) : http.createServer(listener);
  if (tls) {
    server.on('secureConnection', (socket) => {
      counts.handshakes += 1;
      if (socket.isSessionReused()) counts.resumed += 1;
    });
  }
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  /** Resolves true once `pred` holds, false at the timeout. */
  const until = (pred, timeoutMs) => {
    if (pred()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== entry);
        resolve(false);
      }, timeoutMs);
      const entry = {
        pred,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      waiters.push(entry);
    });
  };
  return {
    url: `${origin}/hook`,
    callbackUrl: `${origin}/callback`,
    arrivals,
    counts,
    /** Distinct actions delivered so far. */
    distinct: () => seen.size,
    /** Deliveries of an action beyond its first. */
    duplicates: () => [...seen.values()].reduce((n, c) => n + c - 1, 0),
    reset() {
      arrivals.length = 0;
      seen.clear();
      Object.assign(counts, { callbacks: 0, handshakes: 0, resumed: 0, requests: 0 });
    },
    /** Resolves true when `n` distinct actions arrived, false at the timeout. */
    waitFor: (n, timeoutMs) => until(() => seen.size >= n, timeoutMs),
    /** Resolves true when `n` callbacks arrived, false at the timeout. */
    waitForCallbacks: (n, timeoutMs) => until(() => counts.callbacks >= n, timeoutMs),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r(undefined));
      }),
  };
}

/**
 * A self-signed certificate for 127.0.0.1 (openssl), written to `dir`: { key, cert, certFile }. A sched server
 * trusts it through NODE_EXTRA_CA_CERTS=certFile.
 */
export async function selfSignedCertificate(dir) {
  await fs.mkdir(dir, { recursive: true });
  const keyFile = path.join(dir, 'receiver.key');
  const certFile = path.join(dir, 'receiver.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: await fs.readFile(keyFile, 'utf8'), cert: await fs.readFile(certFile, 'utf8'), certFile };
}

/** n, min, p50, p90, p99 (nearest rank), max and mean of a list of numbers. */
export function summarize(values) {
  const s = Float64Array.from(values).sort();
  const pick = (p) =>
    s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : Number.NaN;
  const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : Number.NaN;
  return {
    n: s.length,
    min: s[0] ?? Number.NaN,
    p50: pick(50),
    p90: pick(90),
    p99: pick(99),
    max: s[s.length - 1] ?? Number.NaN,
    mean,
  };
}

export function fmt(v, digits = 1) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (typeof v !== 'number') return String(v);
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Prints rows (arrays) under a header as an aligned text table. */
export function table(title, header, rows) {
  const cells = [header, ...rows].map((r) =>
    r.map((c) => (typeof c === 'number' ? fmt(c) : String(c ?? '-'))),
  );
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [
    `\n${title}`,
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Webhook action payload due at `dueMs` (exact, via scheduled_for), carrying its due time for the receiver. */
export function webhookAt(receiverUrl, dueMs, extra = {}) {
  return JSON.stringify({
    request: { url: receiverUrl, body: { due: dueMs, ...extra } },
    scheduled_for: new Date(dueMs).toISOString(),
  });
}

/** The machine, for the record. */
export function machine() {
  const cpus = os.cpus();
  return `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
}

/** "server 97% · postgres 61% · bench 12% of a core (load 3.1)" */
export function cpuText(cpu) {
  if (!cpu) return '-';
  const p = (v) => (v === null ? '?' : `${Math.round(v)}%`);
  return `CPU (% of one core): server ${p(cpu.server)}, postgres ${p(cpu.postgres)}, bench ${p(cpu.bench)}; load average ${cpu.load1.toFixed(1)}`;
}

/**
 * With BENCH_WAITS=1: samples pg_stat_activity every 20 ms while a phase runs and returns the most frequent
 * (wait event | statement) pairs of the server's busy connections: where the database time goes.
 */
export function waitSampler(stack) {
  if (!process.env.BENCH_WAITS || !stack.db) return { stop: async () => null };
  const counts = new Map();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await stack.db.query(
        `select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') as w,
                regexp_replace(left(query, 70), '\\s+', ' ', 'g') as q
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state not in ('idle')
            and application_name <> 'bench'`,
      );
      samples += 1;
      for (const r of rows) {
        const k = `${r.w} | ${r.q}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
      await sleep(20);
    }
  })();
  return {
    async stop(top = 12) {
      running = false;
      await loop;
      return {
        samples,
        top: [...counts]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([k, n]) => ({ busyAvg: n / samples, what: k })),
      };
    },
  };
}

export function printWaits(title, waits) {
  if (!waits) return;
  table(
    `${title}: busy server connections by wait event (BENCH_WAITS, ${waits.samples} samples)`,
    ['avg conns', 'wait event | statement'],
    waits.top.map((w) => [w.busyAvg.toFixed(2), w.what]),
  );
}
