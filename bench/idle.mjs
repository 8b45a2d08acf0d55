// @ts-check
// Benchmark "idle": what a server costs while nothing is due. On one sched server of each build, first with an empty
// database and then with --pending N pending actions (due uniformly over 30 days from an hour ahead, so none falls due
// in the window; bench/seed.mjs), the CPU of the server process and of every PostgreSQL process (exited backends,
// autovacuum and the background processes included) over a window of --seconds, in % of one core; PostgreSQL's part
// split by the pool its backends serve (application_name), and the statements run in the window per second. Before
// each window the freshly seeded tables are vacuumed and analyzed and autovacuum is let finish: that catch-up is
// PostgreSQL's, once per bulk load, not what an idle server costs; anything autovacuum does during the window counts.
//
//   node bench/run.mjs idle --pending 1000000 --seconds 60 [--rounds 2]
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  cpuShare,
  cpuSnapshot,
  fmt,
  inRounds,
  log,
  pgCost,
  pgMark,
  settings,
  sleep,
  startReceiver,
  table,
} from './lib.mjs';
import { seedPending, settleSeed } from './seed.mjs';
import { labels, schedSystems } from './systems.mjs';

/**
 * Waits until no autovacuum worker has run anywhere in the cluster for `quietMs` (up to 10 minutes): the catch-up
 * after a bulk load is PostgreSQL's, once, not what an idle server costs.
 */
async function autovacuumSettled(stack, quietMs) {
  const until = Date.now() + 600_000;
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs && Date.now() < until) {
    const { rows } = await stack.db.query(
      `select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'`,
    );
    if (rows[0].n > 0) quietSince = Date.now();
    await sleep(250);
  }
}

/**
 * Samples the PostgreSQL processes every 250 ms while a window runs and adds up the CPU each used while seen, by its
 * kind: a backend by its pool (`sched-all-claims`, `bench`, ...) and database, a background process by its type
 * (checkpointer, autovacuum worker, ...). A process that lives less than a sample is missed; the window's total
 * (cpuSnapshot) has it anyway.
 */
function processSampler(stack) {
  if (!stack.clusterDir || !stack.postgres?.admin) return { stop: async () => null };
  /** @type {Map<number, { kind: string, first: number, last: number }>} */
  const seen = new Map();
  let running = true;
  // The sampler's own backend (its queries, four a second) is the benchmark's cost, not the server's: named apart.
  const own = new Set();
  const sample = async () => {
    own.add((await stack.postgres.admin.query('select pg_backend_pid() as pid')).rows[0].pid);
    const postmaster = Number(
      (await fs.readFile(path.join(stack.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    const { rows } = await stack.postgres.admin.query(
      `select pid, backend_type as type, application_name as app, datname from pg_stat_activity
        where pid <> pg_backend_pid()`,
    );
    const kinds = new Map(
      rows.map((r) => [
        r.pid,
        r.type === 'client backend'
          ? `${r.app || 'client'}${r.datname === stack.databaseName ? '' : ` (${r.datname})`}`
          : r.type,
      ]),
    );
    for (const name of await fs.readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const text = await fs.readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== postmaster) continue;
      const cpu = (Number(f[11]) + Number(f[12])) / 100;
      const pid = Number(name);
      const had = seen.get(pid);
      if (had) had.last = cpu;
      else
        seen.set(pid, {
          kind: own.has(pid) ? 'benchmark sampler' : (kinds.get(pid) ?? 'unknown'),
          first: cpu,
          last: cpu,
        });
    }
  };
  const loop = (async () => {
    while (running) {
      await sample().catch(() => undefined);
      await sleep(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      /** @type {Record<string, number>} */
      const byKind = {};
      for (const p of seen.values()) byKind[p.kind] = (byKind[p.kind] ?? 0) + p.last - p.first;
      return byKind;
    },
  };
}

/** One idle window: CPU % of one core (server, PostgreSQL, its pools) and the statements per second. */
async function idleWindow(stack, ms) {
  const mark = await pgMark(stack);
  const before = await cpuSnapshot(stack);
  const sampler = processSampler(stack);
  await sleep(ms);
  const byKind = await sampler.stop();
  const after = await cpuSnapshot(stack);
  const cpu = cpuShare(before, after);
  const cost = await pgCost(mark, cpu.seconds);
  /** @type {Record<string, number>} */
  const pools = {};
  for (const [pool, seconds] of Object.entries(cpu.pools)) pools[pool] = (100 * seconds) / cpu.seconds;
  /** @type {Record<string, number>} */
  const processes = {};
  for (const [kind, seconds] of Object.entries(byKind ?? {}))
    if (seconds > 0) processes[kind] = (100 * seconds) / cpu.seconds;
  // What the sampler's own queries cost PostgreSQL is taken out: a server nobody measures does not pay it.
  const samplerPercent = processes['benchmark sampler'] ?? 0;
  const postgresPercent = cpu.postgres == null ? null : cpu.postgres - samplerPercent;
  return {
    cpuPercent: cpu.server == null || postgresPercent == null ? null : cpu.server + postgresPercent,
    serverPercent: cpu.server,
    postgresPercent,
    samplerPercent,
    pools,
    processes,
    statementsPerSecond: cost?.statements,
    execMsPerSecond: cost?.execMs,
    walBytesPerSecond: cost?.walBytes,
    top: cost?.top,
  };
}

export async function run({ postgres }) {
  const systems = schedSystems('idle', postgres);
  const receiver = await startReceiver();
  const windowMs = settings.seconds * 1000;
  const quietMs = settings.smoke ? 200 : 10_000;
  try {
    const runs = await inRounds(systems, async (system) => {
      const stack = await system.start();
      try {
        await autovacuumSettled(stack, quietMs);
        const empty = await idleWindow(stack, windowMs);
        log(`idle: seeding ${fmt(settings.pending, 0)} pending actions`);
        await seedPending(stack, { count: settings.pending, url: receiver.url, firstDueInMs: 3_600_000 });
        await settleSeed(stack);
        // A backend reports its inserts to the statistics up to 10 s after its last statement: the seed's may arrive
        // after the VACUUM reset them, and autovacuum would then vacuum the whole table again inside the window.
        await sleep(settings.smoke ? 200 : 12_000);
        await settleSeed(stack);
        await autovacuumSettled(stack, quietMs);
        const pending = await idleWindow(stack, windowMs);
        return { empty, pending };
      } finally {
        await stack.stop();
      }
    });
    const pct = (v) => (v == null ? '-' : fmt(v, 2));
    const poolNames = [
      ...new Set(systems.flatMap((s) => runs[s.key].flatMap((r) => Object.keys(r.pending.pools)))),
    ].sort();
    table(
      `idle: CPU in % of one core over ${settings.seconds} s with nothing due, empty and with ${fmt(settings.pending, 0)} pending; PostgreSQL's live backends by pool`,
      ['system', 'round', 'database', 'total', 'server', 'postgres', ...poolNames, 'statements/s'],
      systems.flatMap((s) =>
        runs[s.key].flatMap((r) =>
          /** @type {const} */ (['empty', 'pending']).map((state) => [
            s.label,
            r.round,
            state,
            pct(r[state].cpuPercent),
            pct(r[state].serverPercent),
            pct(r[state].postgresPercent),
            ...poolNames.map((p) => pct(r[state].pools[p])),
            fmt(r[state].statementsPerSecond, 1),
          ]),
        ),
      ),
    );
    for (const s of systems) {
      for (const r of runs[s.key])
        for (const state of /** @type {const} */ (['empty', 'pending']))
          log(
            `idle: ${s.label} round ${r.round} ${state}: PostgreSQL processes (% of a core, sampled): ` +
              Object.entries(r[state].processes)
                .sort((x, y) => y[1] - x[1])
                .map(([k, v]) => `${k} ${fmt(v, 2)}`)
                .join(', '),
          );
      const last = runs[s.key].at(-1)?.pending;
      if (!last?.top) continue;
      table(
        `idle: ${s.label}, statements per second with ${fmt(settings.pending, 0)} pending (last round)`,
        ['calls/s', 'ms/s', 'statement'],
        last.top.map((t) => [fmt(t.calls, 2), fmt(t.ms, 3), t.query.slice(0, 140)]),
      );
    }
    return { idle: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
