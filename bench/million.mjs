// Benchmark "million": create and lateness figures with 1,000,000 pending future actions in the table, and the RSS
// of `sched serve` with them.
import { measureCreate, printCreate } from './create.mjs';
import { latenessRuns, printLateness, RATES } from './lateness.mjs';
import { fmt, inRounds, log, nowMs, rssMiB, settings, startReceiver, table } from './lib.mjs';
import { seedPending } from './seed.mjs';
import { labels, schedSystems } from './systems.mjs';

/**
 * `count` pending webhook actions (the one seeding helper, bench/seed.mjs), due between 2 and ~300 days from now:
 * what a million creates through the API leave behind. The pg-boss job of an attempt is written only when it comes
 * within a minute of its time, so none of these has one yet.
 */
async function seedMillion(stack, count) {
  const insertMs = await seedPending(stack, {
    count,
    url: 'http://127.0.0.1:9/seeded',
    spreadDays: 300,
    firstDueInMs: 2 * 86_400_000,
  });
  const t1 = nowMs();
  await stack.db.query('vacuum analyze actions');
  // The seed's WAL would otherwise be flushed by a checkpoint in the middle of the next measurement: a backlog
  // built up over months has long been checkpointed.
  await stack.db.query('checkpoint').catch((err) => log(`million: checkpoint refused (${err.message})`));
  const vacuumMs = nowMs() - t1;
  return { count, insertMs, vacuumMs };
}

/** The standard create and lateness measurements on one server, then its RSS. */
async function measure(system, round, stack, receiver, label) {
  const create = await measureCreate(stack, { rss: true });
  printCreate(`million: POST /v1/actions, ${label}`, [system], { [system.key]: [{ round, ...create }] });
  // 600 idle samples in a full run rather than 200: a p99 of 200 is their second-worst value, which alone moves
  // by tens of percent between runs on this machine and would decide a "within 10 %" comparison by noise.
  const runs = await latenessRuns(stack, receiver, {
    rates: RATES.slice(0, 2),
    withCreates: false,
    idleCount: settings.seconds * 60,
  });
  printLateness(`million: lateness, ${label}`, [system], { [system.key]: [{ round, runs }] });
  return { create, idle: runs.idle, loaded: runs['200/s'], rssMiB: await rssMiB(stack.pids[0]) };
}

/** Empty-table and pending figures of one server side by side, with the change in percent. */
function printComparison(title, base, pending) {
  const pct = (m, e) => `${m >= e ? '+' : ''}${fmt(((m - e) / e) * 100)}%`;
  const rows = [
    ['creates/s', base.create.perSecond, pending.create.perSecond],
    ['create p50 ms', base.create.latency.p50, pending.create.latency.p50],
    ['create p99 ms', base.create.latency.p99, pending.create.latency.p99],
    ['lateness idle p50 ms', base.idle.lateness.p50, pending.idle.lateness.p50],
    ['lateness idle p99 ms', base.idle.lateness.p99, pending.idle.lateness.p99],
    ['lateness 200/s p50 ms', base.loaded.lateness.p50, pending.loaded.lateness.p50],
    ['lateness 200/s p99 ms', base.loaded.lateness.p99, pending.loaded.lateness.p99],
    ['RSS of sched serve, MiB', base.rssMiB, pending.rssMiB],
  ].map(([what, e, m]) => [what, e, m, pct(m, e)]);
  table(title, ['figure', 'empty', `${fmt(settings.pending)} pending`, 'change'], rows);
}

/**
 * Each build measured twice on one server: first with an empty table, then after seeding the pending actions.
 * Pairing the two on one server, minutes apart, keeps a noisy machine from deciding the comparison.
 */
export async function run({ postgres }) {
  const systems = schedSystems('million', postgres);
  const receiver = await startReceiver();
  try {
    const runs = await inRounds(systems, async (system, round) => {
      const stack = await system.start();
      try {
        const base = await measure(system, round + 1, stack, receiver, `${system.label}, empty table`);
        log(`million: seeding ${settings.pending} pending actions`);
        const seed = await seedMillion(stack, settings.pending);
        log(
          `million: seeded in ${Math.round(seed.insertMs / 1000)} s + ${Math.round(seed.vacuumMs / 1000)} s (vacuum analyze)`,
        );
        const label = `${system.label}, ${fmt(settings.pending)} pending actions`;
        const pending = await measure(system, round + 1, stack, receiver, label);
        printComparison(
          `million: ${system.label}, empty table vs ${label} (goal: within 10%)`,
          base,
          pending,
        );
        return { seed, base, pending };
      } finally {
        await stack.stop();
      }
    });
    return { million: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
