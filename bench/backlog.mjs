// @ts-check
// Benchmark "backlog": what a large future costs. On one sched server of each build, first with an empty database
// and then after seeding --pending N pending actions (due uniformly over 30 days, so a share falls due during the run
// and is delivered to a receiver of its own) plus N terminal actions of history with their attempts, through the one
// seeding helper (bench/seed.mjs): CPU and WAL per create (due times spread over 30 days, as users' are), lateness
// p50/p99 and CPU per delivery at 200 due/s, the console's inbox and list reads, idle CPU, and the retention pass
// over the history that is past the plan's retention. Pairing empty and full on one server keeps a noisy machine
// from deciding the comparison: the empty database is measured before the seed and again, on a fresh database of the
// same build, after the full one has been measured and dropped, and each ratio divides by the mean of the two, so the
// machine's load drifting over the quarter of an hour between them does not pass for the backlog's cost. Disk and
// the time each step took are printed and kept.
//
//   node bench/run.mjs backlog --pending 10000000 [--rounds 1] [--seconds 10]
import { fireLateness, createLoad, idleCpuPercent } from './phases.mjs';
import {
  cpuMsPerUnit,
  fmt,
  inRounds,
  log,
  nowMs,
  settings,
  startReceiver,
  summarize,
  table,
} from './lib.mjs';
import { seedHistory, seedPending, settleSeed } from './seed.mjs';
import { labels, schedSystems } from './systems.mjs';

const DAY_MS = 86_400_000;

/** The console's reads on the account: the failed inbox (its first page) and the unfiltered list. */
const READS = /** @type {const} */ ([
  ['inbox', '/v1/actions?status=failed&per_page=100'],
  ['list', '/v1/actions?per_page=25'],
]);

/**
 * `repeat` timed GETs of `path` after one to warm it: the HTTP round trip's summary, in ms, and how many answered
 * other than 200 (a statement past the server's timeout answers 503: that read is timed too, as its user waits it).
 */
async function timeRead(stack, path, repeat) {
  let failed = 0;
  const once = async () => {
    const t0 = nowMs();
    const res = await stack.api.request({
      path,
      method: 'GET',
      headers: { authorization: `Bearer ${stack.apiKey}` },
    });
    await res.body.text();
    if (res.statusCode !== 200) {
      failed += 1;
      log(`GET ${path}: ${res.statusCode}`);
    }
    return nowMs() - t0;
  };
  await once();
  failed = 0;
  const times = [];
  for (let i = 0; i < repeat; i += 1) times.push(await once());
  return { ...summarize(times), failed };
}

/** The measurements of one state of the database (empty, or with the backlog). */
async function measure(stack, receiver, label) {
  const seconds = settings.seconds;
  const create = await createLoad(stack, {
    concurrency: 50,
    durationMs: seconds * 1000,
    warmupMs: settings.smoke ? 300 : 2_000,
    sealWaitMs: settings.smoke ? 200 : 1_500,
    // Due anywhere in the next 30 days, as a backlog's creates are: inserts land all over the due index.
    dueAt: () => Date.now() + 3_600_000 + Math.random() * 30 * DAY_MS,
  });
  const count = settings.smoke ? 100 : 200 * seconds * 2;
  const lateness = await fireLateness(stack, receiver, {
    count,
    spreadMs: (count / 200) * 1000,
    leadMs: settings.smoke ? 1_000 : 5_000,
    createRate: create.perSecond,
    concurrency: 50,
    label: `${label}, 200/s`,
  });
  /** @type {Record<string, ReturnType<typeof summarize>>} */
  const reads = {};
  for (const [name, path] of READS) reads[name] = await timeRead(stack, path, settings.smoke ? 3 : 20);
  const idle = await idleCpuPercent(stack, settings.smoke ? 300 : Math.min(seconds, 10) * 1000);
  return { create, lateness, reads, idleCpuPercent: idle };
}

/** The database's size on disk, in bytes. */
async function databaseBytes(stack) {
  const { rows } = await stack.db.query('select pg_database_size(current_database())::float8 as bytes');
  return rows[0].bytes;
}

/** One build: empty, seed, full, retention; then empty again on a fresh database (the stack is stopped by then). */
async function backlogRound(stack, startEmpty, receivers) {
  const emptyBefore = await measure(stack, receivers.measured, 'empty');
  const pending = settings.pending;
  log(`backlog: seeding ${fmt(pending, 0)} pending actions and ${fmt(pending, 0)} of history`);
  const t0 = nowMs();
  const pendingMs = await seedPending(stack, { count: pending, url: receivers.seeded.url });
  log(`backlog: pending seeded in ${Math.round(pendingMs / 1000)} s`);
  // 427 days: a whole calendar month (and a part of the one before) is past the 365-day retention, whatever the date.
  const historyMs = await seedHistory(stack, { count: pending, spreadDays: 427 });
  log(`backlog: history seeded in ${Math.round(historyMs / 1000)} s`);
  const vacuumMs = await settleSeed(stack);
  const seed = {
    count: pending,
    pendingSeconds: pendingMs / 1000,
    historySeconds: historyMs / 1000,
    vacuumSeconds: vacuumMs / 1000,
    seconds: (nowMs() - t0) / 1000,
    diskBytes: await databaseBytes(stack),
  };
  const seededBefore = receivers.seeded.distinct();
  const full = await measure(stack, receivers.measured, `${fmt(pending, 0)} pending`);
  // The history past the plan's retention (its oldest month), removed by the retention pass as the daily job does. A
  // build that waits for a month of attempts to be dropped whole keeps some of it a little longer: the figures are of
  // what the pass removed (actions and attempts), and what past 365 days it left.
  const history = async () =>
    (
      await stack.db.query(
        `select (select count(*) from actions where account_id = $1 and status in ('executed', 'failed'))::float8 as actions,
                (select count(*) from actions where account_id = $1 and status in ('executed', 'failed')
                    and updated_at < now() - interval '365 days')::float8 as expired,
                (select count(*) from delivery_attempts)::float8 as attempts`,
        [stack.accountId],
      )
    ).rows[0];
  const before = await history();
  const r0 = nowMs();
  await stack.cli(['purge']);
  const retentionSeconds = (nowMs() - r0) / 1000;
  const after = await history();
  const dead = await deadTuples(stack);
  const removed = before.actions - after.actions;
  const retention = {
    expired: before.expired,
    removed,
    attemptsRemoved: before.attempts - after.attempts,
    left: after.expired,
    seconds: retentionSeconds,
    secondsPerMillion: removed ? (retentionSeconds / removed) * 1e6 : null,
    deadTuplesAfter: dead.n,
    deadTuplesCounted: dead.how,
  };
  const seeded = {
    seededDelivered: receivers.seeded.distinct() - seededBefore,
    seededLateness: summarize(receivers.seeded.arrivals.map((a) => a.at - a.due)),
    diskBytesAfter: await databaseBytes(stack),
  };
  await stack.stop();
  const twin = await startEmpty();
  let emptyAfter;
  try {
    emptyAfter = await measure(twin, receivers.measured, 'empty again');
  } finally {
    await twin.stop();
  }
  const ratios = {
    createCpu: ratio(cpuCreate(full), bracket(cpuCreate, emptyBefore, emptyAfter)),
    createWal: ratio(
      full.create.pg?.walBytes,
      bracket((m) => m.create.pg?.walBytes, emptyBefore, emptyAfter),
    ),
    latenessP99DeltaMs: difference(
      full.lateness.lateness.p99,
      bracket((m) => m.lateness.lateness.p99, emptyBefore, emptyAfter),
    ),
    deliveryCpu: ratio(cpuDelivery(full), bracket(cpuDelivery, emptyBefore, emptyAfter)),
  };
  return { seed, empty: emptyBefore, emptyAfter, pending: full, retention, ratios, ...seeded };
}

/**
 * The dead tuples left in `actions` and the attempt log. Counted in the pages (pgstattuple_approx reads every page the
 * visibility map does not mark all-visible, and an all-visible page holds none), not read from pg_stat_user_tables:
 * there `n_dead_tup` is a running estimate that the deleting connection's counters reach up to a second after the
 * purge's VACUUM has reset it, so it showed rows that VACUUM had already removed. Falls back to that estimate where
 * the extension cannot be created, and says which it is.
 */
async function deadTuples(stack) {
  const tables = `select 'actions'::regclass as t
                  union all select inhrelid::regclass from pg_inherits where inhparent = 'delivery_attempts'::regclass`;
  try {
    await stack.db.query('create extension if not exists pgstattuple');
    const { rows } = await stack.db.query(
      `select coalesce(sum((pgstattuple_approx(t)).dead_tuple_count), 0)::float8 as n from (${tables}) x`,
    );
    return { n: rows[0].n, how: 'pages' };
  } catch (err) {
    log(`backlog: no pgstattuple (${err.message}); dead tuples from the statistics' estimate`);
    const { rows } = await stack.db.query(
      `select coalesce(sum(n_dead_tup), 0)::float8 as n from pg_stat_user_tables
        where relname = 'actions' or relname like 'delivery\\_attempts%'`,
    );
    return { n: rows[0].n, how: 'estimate' };
  }
}

const cpuCreate = (m) => cpuMsPerUnit(m.create.cpu, m.create.created);
const cpuDelivery = (m) => cpuMsPerUnit(m.lateness.cpu, m.lateness.delivered);

/** The mean of a figure over the empty database's two measurements (the one that is missing left out). */
function bracket(pick, before, after) {
  const xs = [before, after].map(pick).filter((x) => typeof x === 'number' && !Number.isNaN(x));
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

const ratio = (a, b) => (a == null || b == null || !b ? null : a / b);
const difference = (a, b) => (a == null || b == null ? null : a - b);

function printBacklog(systems, runs) {
  const rows = [];
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      const pair = (what, pick, digits = 3) => {
        const f = pick(r.pending);
        const [before, after] = [pick(r.empty), r.emptyAfter ? pick(r.emptyAfter) : null];
        const e = bracket(pick, r.empty, r.emptyAfter ?? r.empty);
        rows.push([
          `${s.label} #${r.round}`,
          what,
          fmt(before, digits),
          fmt(f, digits),
          fmt(after, digits),
          fmt(ratio(f, e), 2),
        ]);
      };
      pair('creates/s', (m) => m.create.perSecond, 0);
      pair('CPU ms per create (server + PostgreSQL)', (m) => cpuMsPerUnit(m.create.cpu, m.create.created));
      pair('WAL B per create', (m) => m.create.pg?.walBytes, 0);
      pair('full-page images per create', (m) => m.create.pg?.walFullPages, 3);
      pair('lateness p50 ms at 200/s', (m) => m.lateness.lateness.p50, 1);
      pair('lateness p99 ms at 200/s', (m) => m.lateness.lateness.p99, 1);
      pair('CPU ms per delivery at 200/s', (m) => cpuMsPerUnit(m.lateness.cpu, m.lateness.delivered));
      pair('inbox p99 ms', (m) => m.reads.inbox.p99, 1);
      pair('list p99 ms', (m) => m.reads.list.p99, 1);
      pair('reads answered other than 200', (m) => m.reads.inbox.failed + m.reads.list.failed, 0);
      pair('idle CPU % of a core', (m) => m.idleCpuPercent, 2);
    }
  }
  table(
    `backlog: empty vs ${fmt(settings.pending, 0)} pending + ${fmt(settings.pending, 0)} history (same server)`,
    ['system', 'figure', 'empty before', 'backlog', 'empty after', 'ratio to their mean'],
    rows,
  );
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      process.stdout.write(
        `  ${s.label} #${r.round}: seeded in ${fmt(r.seed.seconds, 0)} s (pending ${fmt(r.seed.pendingSeconds, 0)} s, ` +
          `history ${fmt(r.seed.historySeconds, 0)} s, vacuum analyze ${fmt(r.seed.vacuumSeconds, 0)} s); database ` +
          `${fmt(r.seed.diskBytes / 2 ** 30, 2)} GiB after the seed, ${fmt(r.diskBytesAfter / 2 ** 30, 2)} GiB at the end\n` +
          `    seeded actions delivered during the run: ${r.seededDelivered} (lateness p50 ${fmt(r.seededLateness.p50)} ms, ` +
          `p99 ${fmt(r.seededLateness.p99)} ms)\n` +
          `    retention: ${fmt(r.retention.removed, 0)} actions and ${fmt(r.retention.attemptsRemoved, 0)} attempts ` +
          `removed in ${fmt(r.retention.seconds, 1)} s (${fmt(r.retention.secondsPerMillion, 0)} s per million actions; ` +
          `of ${fmt(r.retention.expired, 0)} past 365 days, ${fmt(r.retention.left, 0)} left; ` +
          `${fmt(r.retention.deadTuplesAfter, 0)} dead tuples in actions and attempts after it, ${r.retention.deadTuplesCounted === 'pages' ? 'counted in the pages' : 'estimated'})\n`,
      );
    }
  }
}

export async function run({ postgres }) {
  const systems = schedSystems('backlog', postgres);
  const receivers = { measured: await startReceiver(), seeded: await startReceiver() };
  try {
    const runs = await inRounds(systems, async (system) => {
      const stack = await system.start();
      try {
        return await backlogRound(stack, system.start, receivers);
      } finally {
        await stack.stop();
      }
    });
    printBacklog(systems, runs);
    return { backlog: { systems: labels(systems), runs } };
  } finally {
    await Promise.all(Object.values(receivers).map((r) => r.close()));
  }
}
