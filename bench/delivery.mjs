// Benchmark "delivery": N actions all due at one moment (5,000 in a full run), counted at a loopback receiver,
// against a pg-boss worker delivering the same number of jobs due at one moment to the same receiver.
import {
  cpuText,
  inRounds,
  pgCostText,
  printStatements,
  printWaits,
  settings,
  startReceiver,
  table,
} from './lib.mjs';
import { deliveryBurst, pilotCreateRate, workerBurst } from './phases.mjs';
import { drivenBaseline, labels, schedSystems } from './systems.mjs';

export function printDelivery(title, systems, runs) {
  const rows = [];
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      rows.push([
        s.label,
        r.round,
        r.count,
        r.delivered,
        r.missing,
        r.duplicates,
        r.early,
        r.firstArrivalAfterDueMs,
        r.lastArrivalAfterDueMs,
        r.perSecondFromDue,
        r.perSecondFirstToLast,
        r.peakPerSecond,
      ]);
    }
  }
  table(
    title,
    [
      'system',
      'round',
      'due',
      'delivered',
      'lost',
      'dup',
      'early',
      'first ms',
      'last ms',
      '/s from due',
      '/s first-last',
      'peak /s (250 ms)',
    ],
    rows,
  );
  process.stdout.write('  first/last ms = first/last arrival after the due moment\n');
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      process.stdout.write(`  ${s.label} round ${r.round}: ${cpuText(r.cpu)}\n`);
      process.stdout.write(`    ${pgCostText(r.pg, r.cpu, 'delivery')}\n`);
      printStatements(`${s.label} round ${r.round}`, r.pg, 'delivery');
      printWaits(`${s.label} round ${r.round}`, r.waits);
    }
  }
}

/** A burst of `count` on one sched server (created ahead through its API). */
export async function schedBurst(stack, receiver, count) {
  const createRate = await pilotCreateRate(stack, { concurrency: 50 });
  return deliveryBurst(stack, receiver, { count, leadMs: 5_000, createRate });
}

export async function run({ postgres }) {
  const count = settings.deliveries;
  const systems = [drivenBaseline('pgboss-worker'), ...schedSystems('delivery', postgres)];
  const receiver = await startReceiver();
  try {
    const runs = await inRounds(systems, async (system) => {
      if (system.baseline) return workerBurst(postgres, receiver, { count });
      const stack = await system.start();
      try {
        return await schedBurst(stack, receiver, count);
      } finally {
        await stack.stop();
      }
    });
    printDelivery(`delivery: ${count} due at one moment`, systems, runs);
    return { delivery: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
