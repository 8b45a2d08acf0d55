// @ts-check
// The figures of a run as one flat JSON object (`node bench/run.mjs ... --json <file>`): each key a median over the
// rounds of this build (a ratio is the median of the per-round ratios: the two systems of a round ran side by side),
// with its range over the rounds, and the same keys for a reference build (BENCH_SCHED_ROOT) under `ref`, or for
// several under `refs`, one object per build named by its label (BENCH_REF_LABEL). A key whose
// benchmark did not run is null, so every run writes the same keys. The goals are those of the cost-per-unit round
// (docs/performance.md); each is checked against the median, and the lateness at 1,000 due/s against every round.
import { cpuMsPerUnit, fmt, poolCpuMs, table } from './lib.mjs';
import { median } from './systems.mjs';

/** @typedef {{ key: string, label: string, name?: string }} Build */
/** @typedef {Record<string, any>} Results */

/** [key, goal as text, test of a value] for every figure that has a goal. */
export const GOALS = /** @type {const} */ ([
  ['delivery.cpu_ratio', '<= 1.5', (v) => v <= 1.5],
  ['delivery.wal_bytes_per_delivery', '<= 1,600', (v) => v <= 1600],
  ['delivery.non_hot_updates_per_delivery', '<= 1.0', (v) => v <= 1],
  ['lateness.cpu_ratio_at_1000_vs_burst', '<= 1.5', (v) => v <= 1.5],
  ['lateness.p99_ms_at_1000', '<= 25 (every round)', (v) => v <= 25],
  ['create.cpu_ratio_vs_insert', '<= 1.35', (v) => v <= 1.35],
  ['create.audit_wal_bytes_per_create', '<= 500', (v) => v <= 500],
  ['lateness.p99_ms_under_creates', '<= 50', (v) => v <= 50],
  ['idle.cpu_percent', '<= 2', (v) => v <= 2],
  ['backlog.create_cpu_ratio', '<= 1.10', (v) => v <= 1.1],
  ['backlog.create_wal_ratio', '<= 1.25', (v) => v <= 1.25],
  ['backlog.lateness_p99_delta_ms', '<= 5', (v) => v <= 5],
  ['backlog.inbox_p99_ms', '<= 100', (v) => v <= 100],
]);

/** The audit log's share of a create's WAL: the records written to its tables (audit_events, audit_pending, ...). */
const auditWal = (pg) =>
  pg?.walBytesByTable
    ? Object.entries(pg.walBytesByTable)
        .filter(([t]) => t.startsWith('audit'))
        .reduce((n, [, b]) => n + b, 0)
    : undefined;

/**
 * CPU ms per delivery of a burst: the window's, less what the system spends idle during the wait from the end of
 * the creates to the due moment (its idle share measured just before the creates, times that wait), so a long lead
 * is not charged to the deliveries. The pg-boss worker's window has no such wait to speak of (2-3 s, its polling).
 */
const cpuPerDelivery = (r) => {
  const raw = cpuMsPerUnit(r?.cpu, r?.delivered);
  return raw == null || r.idleCpuMs == null ? raw : raw - r.idleCpuMs / r.delivered;
};
/** PostgreSQL's CPU ms per unit in the backends of one pool (application_name sched-<role>-<pool>; lib.mjs poolOf). */
const poolMs = (r, units, pool) => (r?.cpu?.pools ? (poolCpuMs(r.cpu, units)[pool] ?? 0) : undefined);

/**
 * Per figure, how to read it from one round of one system: [key, benchmark, pick(round), baseline key?]. With a
 * baseline, the figure is the median of pick(this round) / pick(the baseline's same round).
 * @type {[string, string, (r: any) => number | null | undefined, string?][]}
 */
const FIGURES = [
  ['delivery.cpu_ms_per_delivery', 'delivery', cpuPerDelivery],
  ['delivery.baseline_cpu_ms_per_delivery', 'delivery', cpuPerDelivery, 'pgboss-worker:value'],
  ['delivery.cpu_ratio', 'delivery', cpuPerDelivery, 'pgboss-worker'],
  ['delivery.wal_bytes_per_delivery', 'delivery', (r) => r.pg?.walBytes],
  ['delivery.non_hot_updates_per_delivery', 'delivery', (r) => r.pg?.nonHotUpdates],
  ['delivery.index_entries_per_delivery', 'delivery', (r) => r.pg?.indexEntries],
  ['delivery.statements_per_delivery', 'delivery', (r) => r.pg?.statements],
  ['delivery.per_second', 'delivery', (r) => r.perSecondFromDue],
  ['delivery.pg_cpu_ms_claims_per_delivery', 'delivery', (r) => poolMs(r, r.delivered, 'claims')],
  ['delivery.pg_cpu_ms_records_per_delivery', 'delivery', (r) => poolMs(r, r.delivered, 'firing')],
  ['delivery.pg_cpu_ms_main_per_delivery', 'delivery', (r) => poolMs(r, r.delivered, 'main')],
  ['delivery.pg_cpu_ms_background_per_delivery', 'delivery', (r) => poolMs(r, r.delivered, 'other')],
  ['delivery.mixed_cpu_ms_per_delivery', 'delivery', (r) => cpuPerDelivery(r.mixed)],
  ['delivery.mixed_wal_bytes_per_delivery', 'delivery', (r) => r.mixed?.pg?.walBytes],
  ['delivery.mixed_non_hot_updates_per_delivery', 'delivery', (r) => r.mixed?.pg?.nonHotUpdates],
  ['delivery.https_cpu_ms_per_delivery', 'delivery', (r) => cpuPerDelivery(r.https)],
  ['delivery.https_handshakes_per_delivery', 'delivery', (r) => r.https?.handshakesPerDelivery],
  ['lateness.p99_ms_idle', 'lateness', (r) => r.runs.idle?.lateness.p99],
  ['lateness.p99_ms_at_200', 'lateness', (r) => r.runs['200/s']?.lateness.p99],
  ['lateness.p99_ms_at_1000', 'lateness', (r) => r.runs['1,000/s']?.lateness.p99],
  ['lateness.cpu_ms_per_delivery_at_1000', 'lateness', (r) => cpuPerDelivery(r.runs['1,000/s'])],
  ['lateness.statements_per_delivery_at_1000', 'lateness', (r) => r.runs['1,000/s']?.pg?.statements],
  ['lateness.p99_ms_under_creates', 'lateness', (r) => r.runs['idle + creates']?.lateness.p99],
  ['idle.cpu_percent', 'lateness', (r) => r.idleCpuPercent],
  ['create.cpu_ms_per_create', 'create', (r) => cpuMsPerUnit(r.cpu, r.created)],
  [
    'create.insert_baseline_cpu_ms_per_create',
    'create',
    (r) => cpuMsPerUnit(r.cpu, r.created),
    'insert:value',
  ],
  ['create.cpu_ratio_vs_insert', 'create', (r) => cpuMsPerUnit(r.cpu, r.created), 'insert'],
  ['create.wal_bytes_per_create', 'create', (r) => r.pg?.walBytes],
  ['create.audit_wal_bytes_per_create', 'create', (r) => auditWal(r.pg)],
  ['create.per_second', 'create', (r) => r.perSecond],
  ['create.pg_cpu_ms_creates_per_create', 'create', (r) => poolMs(r, r.created, 'main')],
  ['create.pg_cpu_ms_seals_per_create', 'create', (r) => poolMs(r, r.created, 'audit')],
  ['create.pg_cpu_ms_counters_per_create', 'create', (r) => poolMs(r, r.created, 'counters')],
  ['backlog.create_cpu_ratio', 'backlog', (r) => r.ratios?.createCpu],
  ['backlog.create_wal_ratio', 'backlog', (r) => r.ratios?.createWal],
  ['backlog.lateness_p99_delta_ms', 'backlog', (r) => r.ratios?.latenessP99DeltaMs],
  ['backlog.delivery_cpu_ratio', 'backlog', (r) => r.ratios?.deliveryCpu],
  ['backlog.inbox_p99_ms', 'backlog', (r) => r.pending?.reads?.inbox.p99],
  ['backlog.list_p99_ms', 'backlog', (r) => r.pending?.reads?.list.p99],
  ['backlog.retention_seconds_per_million', 'backlog', (r) => r.retention?.secondsPerMillion],
  ['backlog.idle_cpu_percent', 'backlog', (r) => r.pending?.idleCpuPercent],
  ['backlog.disk_bytes', 'backlog', (r) => r.seed?.diskBytes],
  ['backlog.seed_seconds', 'backlog', (r) => r.seed?.seconds],
  // The idle suite's window has a million pending (--pending): when it ran, its figure is `idle.cpu_percent`.
  ['idle.cpu_percent', 'idle', (r) => r.pending.cpuPercent],
  ['idle.server_cpu_percent', 'idle', (r) => r.pending.serverPercent],
  ['idle.postgres_cpu_percent', 'idle', (r) => r.pending.postgresPercent],
  ['idle.statements_per_second', 'idle', (r) => r.pending.statementsPerSecond],
  ['idle.empty_cpu_percent', 'idle', (r) => r.empty.cpuPercent],
];

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * The figures of one build (`key`) from a run's results: { figures, ranges } where figures[k] is a number or null
 * and ranges[k] is [min, max] over the rounds.
 * @param {Results} results
 * @param {string} key
 */
function figuresOf(results, key) {
  /** @type {Record<string, number | null>} */
  const figures = {};
  /** @type {Record<string, [number, number]>} */
  const ranges = {};
  for (const [name, bench, pick, against] of FIGURES) {
    const runs = results[bench]?.runs;
    const [baseline, mode] = (against ?? '').split(':');
    const own = runs?.[baseline && mode === 'value' ? baseline : key] ?? [];
    const values = own.map((r, i) => {
      const v = safe(pick, r);
      if (!baseline || mode === 'value') return v;
      const b = safe(pick, runs?.[baseline]?.[i]);
      return finite(v) && finite(b) && b ? v / b : undefined;
    });
    const xs = values.filter(finite);
    // A key two benchmarks give (idle.cpu_percent) keeps the first one's figure when the later one did not run.
    if (!xs.length && figures[name] != null) continue;
    figures[name] = xs.length ? (median(xs, (v) => v) ?? null) : null;
    if (xs.length) ranges[name] = [Math.min(...xs), Math.max(...xs)];
  }
  const burst = figures['delivery.cpu_ms_per_delivery'];
  const steady = figures['lateness.cpu_ms_per_delivery_at_1000'];
  figures['lateness.cpu_ratio_at_1000_vs_burst'] = burst && steady ? steady / burst : null;
  return { figures, ranges };
}

function safe(pick, r) {
  try {
    return r ? pick(r) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The JSON of a run: this build's figures at the top level, their ranges, the goals met or missed, and a reference
 * build's figures under `ref`; with several, each one's under `refs[name]`, in the order of BENCH_SCHED_ROOT.
 * @param {Results} results
 * @param {Build[]} builds
 */
export function runFigures(results, builds) {
  const [A, ...REFS] = builds;
  const own = figuresOf(results, /** @type {Build} */ (A).key);
  const refs = REFS.map((B) => {
    const { figures, ranges } = figuresOf(results, B.key);
    return /** @type {[string, Record<string, any>]} */ ([refName(B), { ...figures, ranges }]);
  });
  /** @type {Record<string, 'met' | 'missed'>} */
  const goals = {};
  for (const [key, , ok] of GOALS) {
    const v = own.figures[key];
    // Lateness at 1,000 due/s is held in every round: its worst round decides.
    const judged = key === 'lateness.p99_ms_at_1000' ? own.ranges[key]?.[1] : v;
    if (judged != null) goals[key] = ok(judged) ? 'met' : 'missed';
  }
  return {
    ...own.figures,
    ranges: own.ranges,
    goals,
    ...(refs.length === 1 ? { ref: refs[0][1] } : {}),
    ...(refs.length > 1 ? { refs: Object.fromEntries(refs) } : {}),
  };
}

/** A reference build's name in the JSON: BENCH_REF_LABEL's (its label without "sched ", for a run recorded before). */
const refName = (/** @type {Build} */ b) => b.name ?? b.label.replace(/^sched /, '');

/**
 * Each reference build's figures in a run's JSON, in the order of `builds` (after this build).
 * @param {ReturnType<typeof runFigures>} json
 * @param {Build[]} builds
 */
const refFigures = (json, builds) =>
  builds.slice(1).map((b) => (json.refs ? json.refs[refName(b)] : json.ref) ?? { ranges: {} });

/**
 * The cost-per-unit table: each figure, its goal, this build's median [range] and, paired, each reference build's.
 * @param {ReturnType<typeof runFigures>} json
 * @param {Build[]} builds
 */
export function printFigures(json, builds) {
  const [A, ...REFS] = builds;
  const refs = refFigures(json, builds);
  /** @type {Map<string, string>} */
  const goalOf = new Map(GOALS.map(([k, g]) => [k, g]));
  const cell = (v, r) =>
    v == null ? '-' : `${fmt(v, 3)}${r && r[0] !== r[1] ? ` [${fmt(r[0], 3)}-${fmt(r[1], 3)}]` : ''}`;
  const rows = [];
  for (const key of Object.keys(json)) {
    if (['ranges', 'goals', 'ref', 'refs'].includes(key)) continue;
    const v = json[key];
    if (v == null && refs.every((ref) => ref[key] == null)) continue;
    rows.push([
      key,
      goalOf.get(key) ?? '',
      cell(v, json.ranges[key]),
      json.goals[key] === 'missed' ? 'MISSED' : (json.goals[key] ?? ''),
      ...refs.map((ref) => cell(ref[key], ref.ranges?.[key])),
    ]);
  }
  if (!rows.length) return;
  table(
    'cost per unit (the keys of --json): medians [range over rounds]',
    ['figure', 'goal', /** @type {Build} */ (A).label, '', ...REFS.map((B) => B.label)],
    rows,
  );
}
