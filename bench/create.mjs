// Benchmark "create": POST /v1/actions at 50 keep-alive connections, against the insert and pg-boss baselines.
import {
  cpuText,
  fmt,
  inRounds,
  pgCostText,
  printStatements,
  printWaits,
  rssMiB,
  settings,
  table,
} from './lib.mjs';
import { createLoad } from './phases.mjs';
import { httpBaseline, labels, schedSystems } from './systems.mjs';

/** Milliseconds of CPU per create of one part (server or PostgreSQL), from its share of a core. */
const msPerCreate = (r, part) =>
  r.cpu?.[part] == null ? null : ((r.cpu[part] / 100) * r.seconds * 1000) / r.created;

/** One row per system and round: throughput, latency, CPU per create and, for sched, the server's RSS after. */
export function printCreate(title, systems, runs) {
  const rows = [];
  for (const s of systems) {
    for (const r of runs[s.key] ?? []) {
      rows.push([
        s.label,
        r.round,
        r.created,
        r.perSecond,
        r.latency.p50,
        r.latency.p99,
        JSON.stringify({ ...r.otherStatuses, ...r.errors }),
        fmt(msPerCreate(r, 'server'), 2),
        fmt(msPerCreate(r, 'postgres'), 2),
        r.rssMiB == null ? '-' : fmt(r.rssMiB, 0),
        fmt(r.cpu?.load1, 1),
      ]);
    }
  }
  table(
    title,
    [
      'system',
      'round',
      'created',
      'creates/s',
      'p50 ms',
      'p99 ms',
      'non-201',
      'server CPU ms/create',
      'pg CPU ms/create',
      'RSS MiB after',
      'load',
    ],
    rows,
  );
  for (const s of systems)
    for (const r of runs[s.key] ?? []) printWaits(`${s.label} round ${r.round}`, r.waits);
}

/** Load on one started system, with the RSS of a sched server once the load is over. */
export async function measureCreate(stack, { rss = false } = {}) {
  const r = await createLoad(stack, {
    concurrency: 50,
    durationMs: settings.seconds * 1000,
    warmupMs: settings.smoke ? 300 : 2_000,
    sealWaitMs: settings.smoke ? 200 : 1_500,
  });
  if (rss) r.rssMiB = await rssMiB(stack.pids[0]);
  return r;
}

export async function run({ postgres }) {
  const systems = [
    httpBaseline('insert', postgres),
    httpBaseline('pgboss', postgres),
    ...schedSystems('create', postgres),
  ];
  const runs = await inRounds(systems, async (system) => {
    const stack = await system.start();
    try {
      return await measureCreate(stack, { rss: !system.baseline });
    } finally {
      await stack.stop();
    }
  });
  printCreate(
    `create: POST /v1/actions, 50 connections, ${settings.seconds} s per system and round` +
      ` (sched at LOG_LEVEL=${settings.logLevel ?? 'default'}; baselines without request logs)`,
    systems,
    runs,
  );
  for (const s of systems)
    for (const r of runs[s.key] ?? []) {
      process.stdout.write(`  ${s.label} round ${r.round}: ${cpuText(r.cpu)}\n`);
      process.stdout.write(`    ${pgCostText(r.pg, r.cpu, 'create')}\n`);
      printStatements(`${s.label} round ${r.round}`, r.pg, 'create');
    }
  return { create: { systems: labels(systems), runs } };
}
