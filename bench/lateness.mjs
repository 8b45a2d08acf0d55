// Benchmark "lateness": fire lateness at a loopback receiver, idle and at 200 and 1,000 due a second, against the
// timer floor (a bare setTimeout to each due moment and the same POST).
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
import { fireLateness, floorLateness, idleCpuPercent, pilotCreateRate } from './phases.mjs';
import { drivenBaseline, labels, schedSystems } from './systems.mjs';

/** The standard runs, each spread over twice --seconds (20 s in a full run). */
export const RATES = [
  { label: 'idle', perSecond: 10, leadMs: 3_000 },
  { label: '200/s', perSecond: 200, leadMs: 5_000 },
  { label: '1,000/s', perSecond: 1_000, leadMs: 5_000 },
];

/**
 * The runs of `rates` on one sched server; `idleCount` sets the count of the idle run instead (at its rate). Unless
 * `withCreates` is false, one more run not among the goals: the idle run while 50 connections create far-future
 * actions as fast as the API takes them, the usual production mix.
 * @param {any} stack
 * @param {any} receiver
 * @param {{ rates?: typeof RATES, withCreates?: boolean, idleCount?: number }} [options]
 */
export async function latenessRuns(stack, receiver, { rates = RATES, withCreates = true, idleCount } = {}) {
  // Creating must end before the first action is due; how long it takes depends on the create rate here.
  // A smoke run's few creates need no pilot: its lead covers them.
  const createRate = settings.smoke ? undefined : await pilotCreateRate(stack, { concurrency: 50 });
  /** @type {Record<string, any>} */
  const runs = {};
  for (const rate of rates) {
    const planned = rate.label === 'idle' && idleCount ? idleCount : rate.perSecond * settings.seconds * 2;
    const count = settings.smoke ? Math.min(planned, 100) : planned;
    runs[rate.label] = await fireLateness(stack, receiver, {
      count,
      spreadMs: (count / rate.perSecond) * 1000,
      leadMs: settings.smoke ? 1_000 : rate.leadMs,
      createRate,
      concurrency: rate.perSecond > 10 ? 50 : 25,
      label: rate.label,
    });
  }
  if (withCreates) {
    const count = 10 * settings.seconds * 2;
    runs['idle + creates'] = await fireLateness(stack, receiver, {
      count,
      spreadMs: count * 100,
      leadMs: settings.smoke ? 1_000 : 3_000,
      createRate,
      createLoadConnections: 50,
      label: 'idle + creates',
    });
  }
  return runs;
}

/** One row per system, round and run: lateness at the receiver (and the server's own figure for sched). */
export function printLateness(title, systems, runsBySystem) {
  const rows = [];
  for (const s of systems) {
    for (const round of runsBySystem[s.key] ?? []) {
      for (const r of Object.values(round.runs)) {
        rows.push([
          `${s.label} #${round.round}`,
          r.label,
          r.count,
          `${r.lateness.n}/${r.delivered}`,
          r.missing,
          r.duplicates,
          r.early,
          r.lateness.p50,
          r.lateness.p99,
          r.lateness.max,
          r.lateness.min,
          r.serverLateness.n ? r.serverLateness.p99 : '-',
        ]);
      }
    }
  }
  table(
    title,
    [
      'system',
      'run',
      'actions',
      'counted',
      'lost',
      'dup',
      'early',
      'p50 ms',
      'p99 ms',
      'max ms',
      'min ms',
      'server p99 ms',
    ],
    rows,
  );
  process.stdout.write(
    '  lateness = arrival at the loopback receiver minus the due time; counted = in the figures / delivered (an\n' +
      '  action whose create answered within 250 ms of its due time is left out); early = arrived > 1 ms before due;\n' +
      '  server p99 = delivery_attempts.lateness_ms (attempt start minus due time, as the server logs it)\n',
  );
  for (const s of systems) {
    for (const round of runsBySystem[s.key] ?? []) {
      for (const r of Object.values(round.runs)) {
        const bg =
          r.backgroundCreatesPerSecond == null
            ? ''
            : `; background creates ${Math.round(r.backgroundCreatesPerSecond)}/s`;
        process.stdout.write(`  ${s.label} #${round.round} ${r.label}: ${cpuText(r.cpu)}${bg}\n`);
        if (r.pg) process.stdout.write(`    ${pgCostText(r.pg, r.cpu, 'delivery')}\n`);
        printStatements(`${s.label} #${round.round} ${r.label}`, r.pg, 'delivery');
        printWaits(`${s.label} #${round.round} ${r.label}`, r.waits);
      }
    }
  }
}

/** The standard runs `--rates` keeps (all without it). */
const chosenRates = () => RATES.filter((r) => !settings.rates || settings.rates.includes(r.perSecond));

export async function run({ postgres }) {
  const rates = chosenRates();
  const systems = [drivenBaseline('timer'), ...schedSystems('lateness', postgres)];
  const receiver = await startReceiver();
  try {
    const runs = await inRounds(systems, async (system) => {
      if (system.baseline) {
        const out = {};
        for (const rate of rates) {
          const planned = rate.perSecond * settings.seconds * 2;
          const count = settings.smoke ? Math.min(planned, 100) : planned;
          out[rate.label] = await floorLateness(postgres, receiver, {
            count,
            spreadMs: (count / rate.perSecond) * 1000,
            leadMs: settings.smoke ? 1_000 : 2_000,
            label: rate.label,
          });
        }
        return { runs: out };
      }
      const stack = await system.start();
      try {
        const runs = await latenessRuns(stack, receiver, {
          rates,
          withCreates: rates.some((r) => r.label === 'idle'),
        });
        // Idle: nothing due, the far-future actions of the runs above pending.
        return { runs, idleCpuPercent: await idleCpuPercent(stack, settings.seconds * 1000) };
      } finally {
        await stack.stop();
      }
    });
    printLateness(
      `lateness: ${rates.map((r) => r.label).join(', ')}, each over ${settings.seconds * 2} s`,
      systems,
      runs,
    );
    return { lateness: { systems: labels(systems), runs } };
  } finally {
    await receiver.close();
  }
}
