// Benchmark 4: create and lateness figures with 1,000,000 pending future actions in the table.
import { fmt, log, nowMs, startReceiver, startStack, table } from './lib.mjs';
import { printCreate } from './create.mjs';
import { latenessRuns, printLateness } from './lateness.mjs';
import { createLoad } from './phases.mjs';

const PENDING = Number(process.env.BENCH_PENDING ?? 1_000_000);
/** pg-boss queue of the durable per-action trigger (server/src/jobs/queue.ts QUEUES.actionDue). */
const ACTION_DUE_QUEUE = 'sched.action-due';

/**
 * Inserts `count` pending webhook actions straight into `actions` (generate_series), due between 2 and ~300 days
 * from now, one every 25 s. With `jobs`, each also gets its pg-boss job, as a create through the API would write:
 * a million pending actions in production come with a million pending jobs. Two halves run on two connections.
 */
export async function seedPending(stack, count, { jobs }) {
  const t0 = nowMs();
  const half = Math.ceil(count / 2);
  const chunk = (from, to) =>
    stack.db.query(
      `with seeded as (
         insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at,
           max_attempts, retry_strategy, request, created_at, updated_at)
         select gen_random_uuid(), $1, 'seeded ' || g, 'webhook', 'scheduled', 'UTC', t, t, 5, 'exponential',
                jsonb_build_object('url', 'http://127.0.0.1:9/seeded', 'method', 'POST', 'headers', '{}'::jsonb,
                                   'body', jsonb_build_object('n', g)),
                now() - interval '1 day' + g * interval '1 millisecond', now()
           from generate_series($2::int, $3::int) g,
                lateral (select now() + interval '2 days' + g * interval '25 seconds' as t) s
         returning id, next_attempt_at, created_at
       )
       ${
         jobs
           ? // Same values as pg-boss's send() for this queue (retry 5 after 1 s, expire 300 s, kept 400 days).
             `insert into pgboss.job (name, data, start_after, retry_limit, retry_delay, expire_seconds,
                deletion_seconds, keep_until, policy, created_on)
              select $4, jsonb_build_object('actionId', id), next_attempt_at, 5, 1, 300, 3600,
                     next_attempt_at + interval '400 days', 'standard', created_at
                from seeded`
           : 'select count(*) from seeded'
       }`,
      jobs ? [stack.accountId, from, to, ACTION_DUE_QUEUE] : [stack.accountId, from, to],
    );
  await Promise.all([chunk(1, half), chunk(half + 1, count)]);
  const insertMs = nowMs() - t0;
  const t1 = nowMs();
  await stack.db.query('vacuum analyze actions');
  if (jobs) await stack.db.query('analyze pgboss.job');
  const vacuumMs = nowMs() - t1;
  return { count, jobs, insertMs, vacuumMs };
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
  const { idle, loaded } = await latenessRuns(stack, receiver, { withCreates: false });
  printLateness(`million: lateness, ${label}`, [idle, loaded]);
  return { create, idle, loaded };
}

/**
 * One server measured twice: first with an empty table, then after seeding PENDING pending actions. Pairing the
 * two on one server, minutes apart, keeps a noisy machine from deciding the comparison.
 */
export async function run() {
  const jobs = process.env.BENCH_MILLION_JOBS !== '0';
  const stack = await startStack('million');
  const receiver = await startReceiver();
  try {
    const base = await measure(stack, receiver, 'empty table');
    log(`million: seeding ${PENDING} pending actions${jobs ? ' and their pg-boss jobs' : ''}`);
    const seed = await seedPending(stack, PENDING, { jobs });
    log(
      `million: seeded in ${Math.round(seed.insertMs / 1000)} s + ${Math.round(seed.vacuumMs / 1000)} s (vacuum analyze)`,
    );
    const label = `${fmt(PENDING)} pending actions${jobs ? ' + their pg-boss jobs' : ''}`;
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
