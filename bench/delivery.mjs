// Benchmark 3: delivery throughput, 5,000 actions all due at the same moment, counted at a loopback receiver.
import { cpuText, printWaits, startReceiver, startStack, table } from './lib.mjs';
import { deliveryBurst, pilotCreateRate } from './phases.mjs';

export const GOAL_DELIVERIES_PER_SECOND = 1000;

export function printDelivery(title, r) {
  table(
    title,
    [
      'actions',
      'delivered',
      'dup',
      'first after due ms',
      'last after due ms',
      '/s from due',
      '/s first-last',
      'peak /s (250 ms)',
    ],
    [
      [
        r.count,
        r.delivered,
        r.duplicates,
        r.firstArrivalAfterDueMs,
        r.lastArrivalAfterDueMs,
        r.perSecondFromDue,
        r.perSecondFirstToLast,
        r.peakPerSecond,
      ],
    ],
  );
  process.stdout.write(`  ${cpuText(r.cpu)}\n`);
  printWaits(title.split(':')[0], r.waits);
}

export async function run() {
  const stack = await startStack('delivery');
  const receiver = await startReceiver();
  try {
    const createRate = await pilotCreateRate(stack, { concurrency: 50 });
    const r = await deliveryBurst(stack, receiver, { count: 5_000, leadMs: 5_000, createRate });
    printDelivery(`delivery: 5,000 actions due at one moment (goal >= ${GOAL_DELIVERIES_PER_SECOND}/s)`, r);
    return { delivery: r };
  } finally {
    await receiver.close();
    await stack.stop();
  }
}
