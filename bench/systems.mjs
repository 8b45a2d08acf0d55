// The systems a benchmark compares: the baselines (bench/baselines/) and the sched builds under test (BUILDS), each a
// { key, label, start() } that starts it on the run's PostgreSQL and resolves to a stack with a stop().
import { BUILDS, startBaseline, startStack } from './lib.mjs';

export const BASELINES = {
  insert: 'insert baseline (Fastify + zod + one INSERT)',
  pgboss: 'pg-boss baseline (Fastify + zod + boss.send)',
  'pgboss-worker': 'pg-boss worker baseline (boss.work batches + undici POST)',
  timer: 'timer floor (setTimeout + undici POST)',
};

/** An HTTP baseline server (insert, pgboss) as a system of the create benchmark. */
export const httpBaseline = (key, postgres) => ({
  key,
  label: BASELINES[key],
  baseline: true,
  start: () => startBaseline(key, BASELINES[key], postgres, { withHttp: true }),
});

/** A baseline that the benchmark drives itself (pgboss-worker, timer): no process to start up front. */
export const drivenBaseline = (key) => ({ key, label: BASELINES[key], baseline: true });

/** Every sched build under test, each started as `sched serve` on a fresh database for benchmark `name`. */
export const schedSystems = (name, postgres) =>
  BUILDS.map((build) => ({ ...build, start: () => startStack(name, build, postgres) }));

/** { key: label } of a list of systems, for the JSON and the summary. */
export const labels = (systems) => Object.fromEntries(systems.map((s) => [s.key, s.label]));

/** The median of `pick(result)` over a system's rounds (the mean of the two middle values for an even count). */
export function median(runs, pick) {
  const xs = (runs ?? []).map(pick).filter((x) => typeof x === 'number' && !Number.isNaN(x));
  if (!xs.length) return undefined;
  xs.sort((a, b) => a - b);
  const mid = xs.length / 2;
  return Number.isInteger(mid) ? (xs[mid - 1] + xs[mid]) / 2 : xs[Math.floor(mid)];
}
