// Benchmark 2: fire lateness measured by a loopback receiver, at idle and while 200 actions a second fall due.
import { cpuText, printWaits, startReceiver, startStack, table } from './lib.mjs';
import { fireLateness, pilotCreateRate } from './phases.mjs';

export const GOALS = { idleP99Ms: 100, loadedP99Ms: 250 };

/**
 * The standard runs: 200 actions over 20 s (10/s, "idle"; `idleCount` makes it longer at the same rate), then 4,000 over 20 s (200/s); unless `withCreates` is
 * false, a third: the idle run while 50 connections create far-future actions as fast as the API takes them.
 */
export async function latenessRuns(stack, receiver, { withCreates: mixed = true, idleCount = 200 } = {}) {
  // Creating must end before the first action is due; how long it takes depends on the create rate here.
  const createRate = await pilotCreateRate(stack, { concurrency: 50 });
  const idle = await fireLateness(stack, receiver, {
    count: idleCount,
    spreadMs: idleCount * 100, // 10 due a second
    leadMs: 3_000,
    createRate,
    label: 'idle',
  });
  const loaded = await fireLateness(stack, receiver, {
    count: 4_000,
    spreadMs: 20_000,
    leadMs: 5_000,
    createRate,
    concurrency: 50,
    label: '200/s',
  });
  if (!mixed) return { idle, loaded };
  // Not a goal of issue 3, but the production mix: the idle run again while the API takes creates at full speed.
  const withCreates = await fireLateness(stack, receiver, {
    count: 200,
    spreadMs: 20_000,
    leadMs: 3_000,
    createRate,
    createLoadConnections: 50,
    label: 'idle + creates',
  });
  return { idle, loaded, withCreates };
}

export function printLateness(title, runs) {
  const rows = [];
  for (const r of runs) {
    rows.push([
      `${r.label} receiver`,
      r.count,
      r.duePerSecond,
      `${r.lateness.n}/${r.delivered}`,
      r.duplicates,
      r.lateness.p50,
      r.lateness.p90,
      r.lateness.p99,
      r.lateness.max,
      r.lateness.min,
    ]);
    rows.push([
      `${r.label} server`,
      '',
      '',
      r.serverLateness.n,
      '',
      r.serverLateness.p50,
      r.serverLateness.p90,
      r.serverLateness.p99,
      r.serverLateness.max,
      r.serverLateness.min,
    ]);
  }
  table(
    title,
    ['run', 'actions', 'due/s', 'counted', 'dup', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'min ms'],
    rows,
  );
  process.stdout.write(
    '  counted = deliveries in the figures / delivered (an action whose create answered within 250 ms of its due\n' +
      '  time is left out); receiver = arrival at the loopback receiver minus scheduled_for;\n' +
      '  server = delivery_attempts.lateness_ms (attempt start minus due time, as the server logs it)\n',
  );
  for (const r of runs) {
    const bg =
      r.backgroundCreatesPerSecond === null
        ? ''
        : `; background creates ${Math.round(r.backgroundCreatesPerSecond)}/s`;
    process.stdout.write(`  ${r.label}: ${cpuText(r.cpu)}${bg}\n`);
  }
  for (const r of runs) printWaits(`${title.split(':')[0]} ${r.label}`, r.waits);
}

export async function run() {
  const stack = await startStack('lateness');
  const receiver = await startReceiver();
  try {
    const { idle, loaded, withCreates } = await latenessRuns(stack, receiver);
    printLateness(
      `lateness: empty table (goals p99 <= ${GOALS.idleP99Ms} ms idle, <= ${GOALS.loadedP99Ms} ms at 200/s)`,
      [idle, loaded, withCreates],
    );
    return { latenessIdle: idle, latenessLoaded: loaded, latenessWithCreates: withCreates };
  } finally {
    await receiver.close();
    await stack.stop();
  }
}
