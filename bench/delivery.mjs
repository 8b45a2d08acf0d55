// Benchmark "delivery": N actions all due at one moment (5,000 in a full run), counted at a loopback receiver,
// against a pg-boss worker delivering the same number of jobs due at one moment to the same receiver. Each sched
// server then takes two more bursts of N/2, not compared with a baseline: mixed outcomes (callbacks, recurring
// series, 5xx and 4xx answers) and an https receiver (a self-signed certificate the server trusts), whose cost per
// delivery beside the plain burst's is what TLS costs with connections reused.
import path from 'node:path';
import {
  cpuMsPerUnit,
  cpuText,
  fmt,
  inRounds,
  pgCostText,
  printStatements,
  printWaits,
  selfSignedCertificate,
  settings,
  startReceiver,
  TMP,
  table,
} from './lib.mjs';
import {
  deliveryBurst,
  mixedAnswer,
  mixedCallbacks,
  mixedPayload,
  pilotCreateRate,
  workerBurst,
} from './phases.mjs';
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
  // A smoke run's few creates need no pilot: its lead covers them.
  const createRate = settings.smoke ? undefined : await pilotCreateRate(stack, { concurrency: 50 });
  return deliveryBurst(stack, receiver, { count, leadMs: settings.smoke ? 3_000 : 5_000, createRate });
}

/** The burst, then the mixed-outcome and https bursts of half its size, on one sched server. */
async function schedBursts(stack, receivers, count) {
  // A smoke run's few creates need no pilot: its lead covers them.
  const createRate = settings.smoke ? undefined : await pilotCreateRate(stack, { concurrency: 50 });
  const leadMs = settings.smoke ? 3_000 : 5_000;
  const burst = await deliveryBurst(stack, receivers.plain, { count, leadMs, createRate });
  const half = Math.max(20, Math.round(count / 2));
  const mixed = await deliveryBurst(stack, receivers.mixed, {
    count: half,
    leadMs,
    createRate,
    payload: mixedPayload(receivers.mixed),
    callbacks: mixedCallbacks(half),
  });
  const https = await deliveryBurst(stack, receivers.https, { count: half, leadMs, createRate });
  return { ...burst, mixed, https };
}

function printVariants(systems, runs) {
  const rows = [];
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      for (const [what, v] of [
        ['plain', r],
        ['mixed', r.mixed],
        ['https', r.https],
      ]) {
        if (!v) continue;
        rows.push([
          `${s.label} #${r.round}`,
          what,
          v.delivered,
          v.missing,
          v.duplicates,
          v.callbacks,
          fmt(cpuMsPerUnit(v.cpu, v.delivered), 3),
          fmt(v.pg?.walBytes, 0),
          fmt(v.pg?.nonHotUpdates, 2),
          fmt(v.pg?.statements, 3),
          what === 'https' ? `${fmt(v.handshakesPerDelivery, 3)} (${v.resumedHandshakes} resumed)` : '-',
        ]);
      }
    }
  }
  if (!rows.length) return;
  table(
    'delivery: cost per delivery by kind of burst (server + PostgreSQL CPU, window from the end of creates to a VACUUM)',
    [
      'system',
      'burst',
      'delivered',
      'lost',
      'dup',
      'callbacks',
      'CPU ms',
      'WAL B',
      'non-HOT upd',
      'statements',
      'TLS handshakes per delivery',
    ],
    rows,
  );
}

export async function run({ postgres }) {
  const count = settings.deliveries;
  const systems = [drivenBaseline('pgboss-worker'), ...schedSystems('delivery', postgres)];
  // Set before any server starts: each sched server trusts the https receiver's certificate.
  const tls = await selfSignedCertificate(path.join(TMP, 'tls'));
  process.env.NODE_EXTRA_CA_CERTS = tls.certFile;
  const receivers = {
    plain: await startReceiver(),
    mixed: await startReceiver({ answer: mixedAnswer }),
    https: await startReceiver({ tls }),
  };
  try {
    const runs = await inRounds(systems, async (system) => {
      if (system.baseline) return workerBurst(postgres, receivers.plain, { count });
      const stack = await system.start();
      try {
        return await schedBursts(stack, receivers, count);
      } finally {
        await stack.stop();
      }
    });
    printDelivery(`delivery: ${count} due at one moment`, systems, runs);
    printVariants(systems, runs);
    return { delivery: { systems: labels(systems), runs } };
  } finally {
    await Promise.all(Object.values(receivers).map((r) => r.close()));
  }
}
