// Benchmark 1: create throughput and latency of POST /v1/actions at 50 concurrent keep-alive connections.
import { cpuText, printWaits, fmt, startStack, table } from './lib.mjs';
import { createLoad } from './phases.mjs';

export const GOAL_CREATES_PER_SECOND = 2000;

export function printCreate(title, r) {
  table(
    title,
    [
      'connections',
      'seconds',
      'created',
      'creates/s',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'non-201',
      'errors',
    ],
    [
      [
        r.concurrency,
        r.seconds,
        r.created,
        r.perSecond,
        r.latency.p50,
        r.latency.p90,
        r.latency.p99,
        r.latency.max,
        JSON.stringify(r.otherStatuses),
        JSON.stringify(r.errors),
      ],
    ],
  );
  process.stdout.write(`  ${cpuText(r.cpu)}\n`);
  printWaits(title.split(':')[0], r.waits);
}

export async function run() {
  const stack = await startStack('create');
  try {
    const r = await createLoad(stack, { concurrency: 50, durationMs: 10_000 });
    printCreate(`create: POST /v1/actions, empty table (goal >= ${fmt(GOAL_CREATES_PER_SECOND)}/s)`, r);
    return { create: r };
  } finally {
    await stack.stop();
  }
}
