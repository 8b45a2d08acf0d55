// Benchmark "memory": a leak check. One `sched serve` process does the same work five times (the same number of
// creates, then a burst of deliveries); the RSS after each run is read once the process has settled. V8 grows its
// heap in steps during the first runs (smoke runs: one jump of ~50 MiB at run 2 or 3, then a few MiB a run), so the figure is
// the growth between the last two identical runs, and a leak is growth that goes on step after step.
import { schedBurst } from './delivery.mjs';
import { fmt, inRounds, rssMiB, settings, sleep, startReceiver, table } from './lib.mjs';
import { createLoad } from './phases.mjs';
import { labels, schedSystems } from './systems.mjs';

/** Growth between the last two runs above this share is a leak. */
export const LEAK_TOLERANCE = 0.05;
/** Growth above this share at each of the last two steps is a leak too: a steady leak, smaller per run. */
const STEADY_STEP = 0.02;
const RUNS = 5;

export async function run({ postgres }) {
  const systems = schedSystems('memory', postgres);
  // Identical work in every run, whatever the machine's load: counts, not durations.
  const creates = settings.deliveries;
  const burst = Math.max(100, Math.round(settings.deliveries / 5));
  const receiver = await startReceiver();
  try {
    const runs = await inRounds(systems, async (system) => {
      const stack = await system.start();
      try {
        const rss = [];
        for (let i = 0; i < RUNS; i++) {
          await createLoad(stack, { concurrency: 50, count: creates, durationMs: Infinity, warmupMs: 0 });
          await schedBurst(stack, receiver, burst);
          await sleep(2_000); // let the last responses, timers and an idle collection settle
          rss.push(await rssMiB(stack.pids[0]));
        }
        const step = (i) => (rss[i] - rss[i - 1]) / rss[i - 1];
        const growth = step(RUNS - 1);
        const leak = growth > LEAK_TOLERANCE || (growth > STEADY_STEP && step(RUNS - 2) > STEADY_STEP);
        return { rssMiB: rss, growth, leak };
      } finally {
        await stack.stop();
      }
    });
    const rows = systems.flatMap((s) =>
      (runs[s.key] ?? []).map((r) => [
        s.label,
        r.round,
        ...r.rssMiB.map((v) => fmt(v, 0)),
        `${r.growth >= 0 ? '+' : ''}${fmt(r.growth * 100)}%`,
        r.leak ? 'GROWS' : 'steady',
      ]),
    );
    table(
      `memory: RSS (MiB) of one sched serve after each of ${RUNS} identical runs (${fmt(creates)} creates + ` +
        `${fmt(burst)} deliveries each); leak = growth from run ${RUNS - 1} to ${RUNS} above ` +
        `${LEAK_TOLERANCE * 100}%, or above ${STEADY_STEP * 100}% at each of the last two steps`,
      [
        'system',
        'round',
        ...Array.from({ length: RUNS }, (_, i) => `after ${i + 1}`),
        `${RUNS - 1} -> ${RUNS}`,
        '',
      ],
      rows,
    );
    return { memory: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
