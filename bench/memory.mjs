// Benchmark "memory": a leak check. One `sched serve` process runs the same work three times (create load, then a
// burst of deliveries); the RSS after the second and the third must match: the first run only warms up (JIT, pools).
import { measureCreate } from './create.mjs';
import { schedBurst } from './delivery.mjs';
import { fmt, inRounds, rssMiB, settings, sleep, startReceiver, table } from './lib.mjs';
import { labels, schedSystems } from './systems.mjs';

/** RSS may move with garbage collection: growth up to this share between the two compared runs is no leak. */
export const LEAK_TOLERANCE = 0.05;

export async function run({ postgres }) {
  const systems = schedSystems('memory', postgres);
  const burst = Math.max(100, Math.round(settings.deliveries / 5));
  const receiver = await startReceiver();
  try {
    const runs = await inRounds(systems, async (system) => {
      const stack = await system.start();
      try {
        const rss = [];
        for (let i = 0; i < 3; i++) {
          await measureCreate(stack);
          await schedBurst(stack, receiver, burst);
          await sleep(1_000); // let the last responses and timers settle
          rss.push(await rssMiB(stack.pids[0]));
        }
        const growth = (rss[2] - rss[1]) / rss[1];
        return { rssMiB: rss, growth, leak: growth > LEAK_TOLERANCE };
      } finally {
        await stack.stop();
      }
    });
    const rows = systems.flatMap((s) =>
      runs[s.key].map((r) => [
        s.label,
        r.round,
        fmt(r.rssMiB[0], 0),
        fmt(r.rssMiB[1], 0),
        fmt(r.rssMiB[2], 0),
        `${r.growth >= 0 ? '+' : ''}${fmt(r.growth * 100)}%`,
        r.leak ? 'GROWS' : 'steady',
      ]),
    );
    table(
      `memory: RSS (MiB) of one sched serve after each of three identical runs (${settings.seconds} s of creates + ` +
        `${burst} deliveries); run 1 warms up, runs 2 and 3 are compared (tolerance ${LEAK_TOLERANCE * 100}%)`,
      ['system', 'round', 'after 1', 'after 2', 'after 3', '2 -> 3', ''],
      rows,
    );
    return { memory: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
