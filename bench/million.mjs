// Benchmark 4: create and lateness figures with 1,000,000 pending future actions in the table.
import { fmt, log, nowMs, startReceiver, startStack, table } from './lib.mjs';
import { printCreate } from './create.mjs';
import { latenessRuns, printLateness } from './lateness.mjs';
import { createLoad } from './phases.mjs';

const PENDING = Number(process.env.BENCH_PENDING ?? 1_000_000);

/**
 * Inserts `count` pending webhook actions straight into `actions` (generate_series), due between 2 and ~300 days
 * from now, one every 25 s: what a million creates through the API leave behind. The pg-boss job
 * of an attempt is written only when it comes within a minute of its time, so none of these has one yet. Two halves
 * run on two connections.
 */
export async function seedPending(stack, count) {
  const t0 = nowMs();
  const half = Math.ceil(count / 2);
  const chunk = (from, to) =>
    stack.db.query(
      `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at,
         max_attempts, retry_strategy, request, created_at, updated_at)
       select gen_random_uuid(), $1, 'seeded ' || g, 'webhook', 'scheduled', 'UTC', t, t, 5, 'exponential',
              jsonb_build_object('url', 'http://127.0.0.1:9/seeded', 'method', 'POST', 'headers', '{}'::jsonb,
                                 'body', jsonb_build_object('n', g)),
              now() - interval '1 day' + g * interval '1 millisecond', now()
         from generate_series($2::int, $3::int) g,
              lateral (select now() + interval '2 days' + g * interval '25 seconds' as t) s`,
      [stack.accountId, from, to],
    );
  await Promise.all([chunk(1, half), chunk(half + 1, count)]);
  const insertMs = nowMs() - t0;
  const t1 = nowMs();
  await stack.db.query('vacuum analyze actions');
  // The seed's WAL would otherwise be flushed by a checkpoint in the middle of the next measurement: a backlog
  // built up over months has long been checkpointed.
  await stack.db.query('checkpoint').catch((err) => log(`million: checkpoint refused (${err.message})`));
  const vacuumMs = nowMs() - t1;
  return { count, insertMs, vacuumMs };
}

/** Empty-table and 1M-pending figures side by side, with the change in percent. */
function printComparison(title, base, loaded) {
  const pct = (m, e) => `${m >= e ? '+' : ''}${fmt(((m - e) / e) * 100)}%`;
  const rows = [
    ['creates/s', base.create.perSecond, loaded.create.perSecond],
    ['create p50 ms', base.create.latency.p50, loaded.create.latency.p50],
    ['create p99 ms', base.create.latency.p99, loaded.create.latency.p99],
    ['lateness idle p50 ms', base.idle.lateness.p50, loaded.idle.lateness.p50],
    ['lateness idle p99 ms', base.idle.lateness.p99, loaded.idle.lateness.p99],
    ['lateness idle max ms', base.idle.lateness.max, loaded.idle.lateness.max],
    ['lateness 200/s p50 ms', base.loaded.lateness.p50, loaded.loaded.lateness.p50],
    ['lateness 200/s p99 ms', base.loaded.lateness.p99, loaded.loaded.lateness.p99],
    ['lateness 200/s max ms', base.loaded.lateness.max, loaded.loaded.lateness.max],
  ].map(([what, e, m]) => [what, e, m, pct(m, e)]);
  table(title, ['figure', 'empty', `${fmt(PENDING)} pending`, 'change'], rows);
}

/** The standard create and lateness measurements on one server. */
async function measure(stack, receiver, label) {
  const create = await createLoad(stack, { concurrency: 50, durationMs: 10_000 });
  printCreate(`million: POST /v1/actions, ${label}`, create);
  // 600 idle samples rather than 200: a p99 of 200 is their second-worst value, which alone moves by tens of
  // percent between runs on this machine and would decide a "within 10 %" comparison by noise.
  const { idle, loaded } = await latenessRuns(stack, receiver, { withCreates: false, idleCount: 600 });
  printLateness(`million: lateness, ${label}`, [idle, loaded]);
  return { create, idle, loaded };
}

/**
 * One server measured twice: first with an empty table, then after seeding PENDING pending actions. Pairing the
 * two on one server, minutes apart, keeps a noisy machine from deciding the comparison.
 */
export async function run() {
  const stack = await startStack('million');
  const receiver = await startReceiver();
  try {
    const base = await measure(stack, receiver, 'empty table');
    log(`million: seeding ${PENDING} pending actions`);
    const seed = await seedPending(stack, PENDING);
    log(
      `million: seeded in ${Math.round(seed.insertMs / 1000)} s + ${Math.round(seed.vacuumMs / 1000)} s (vacuum analyze)`,
    );
    const label = `${fmt(PENDING)} pending actions`;
    const loaded = await measure(stack, receiver, label);
    printComparison(`million: empty table vs ${label} (goal: within 10%)`, base, loaded);
    return {
      seed,
      millionBase: base,
      millionCreate: loaded.create,
      millionLatenessIdle: loaded.idle,
      millionLatenessLoaded: loaded.loaded,
    };
  } finally {
    await receiver.close();
    await stack.stop();
  }
}
