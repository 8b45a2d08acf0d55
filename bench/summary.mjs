// The one table of a run: for each goal against the baselines (docs/performance.md) the baseline's median, sched's, their ratio, the goal and
// whether it is met; with reference builds (BENCH_SCHED_ROOT) each one's median and the ratio of this build to it. A
// ratio is the median of the per-round ratios: the systems of a round ran next to each other in time.
// Also re-prints the tables of a past run (see the end of this file).
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { printFigures, runFigures } from './keys.mjs';
import { fmt, pgCpuMs, table } from './lib.mjs';
import { LEAK_TOLERANCE } from './memory.mjs';
import { median } from './systems.mjs';

/**
 * A reference build's cells in a row: its median, its range over the rounds, and this build / it.
 * @typedef {{ b?: number, bRange?: number[], ab?: number }} Ref
 */

/** `results` as run.mjs collects them, `builds` [{ key, label }] (this build first), `settings` of the run. */
export function printSummary({ results, builds, settings }) {
  const [A, ...REFS] = builds;
  const rows = [];
  const x = (v) => (v === undefined || !Number.isFinite(v) ? '-' : `${fmt(v, 2)}x`);
  /**
   * One figure: the baseline's median, sched's median, their relation, the goal and whether it is met, and for each
   * reference build its median and sched/ref. With more than one round, each sched median shows the range of the
   * rounds in brackets: the noise a paired comparison has to beat.
   * @param {string} figure
   * @param {{ base?: number, a?: number, aRange?: number[], refs?: Ref[], relation?: string, goal?: string,
   *   ok?: boolean, digits?: number }} cells
   */
  function row(figure, { base, a, aRange, refs = [], relation = '', goal = '(reported)', ok, digits = 1 }) {
    const cell = (v, range) =>
      v === undefined
        ? '-'
        : `${fmt(v, digits)}${range && range[0] !== range[1] ? ` [${fmt(range[0], digits)}-${fmt(range[1], digits)}]` : ''}`;
    rows.push([
      figure,
      base === undefined ? '-' : fmt(base, digits),
      cell(a, aRange),
      relation,
      goal,
      ok === undefined || a === undefined ? '' : ok ? 'met' : 'MISSED',
      ...REFS.flatMap((_, i) => {
        const { b, bRange, ab } = refs[i] ?? {};
        return [cell(b, bRange), x(ab ?? (a === undefined || b === undefined ? undefined : a / b))];
      }),
    ]);
  }
  const med = (bench, key, pick) => median(results[bench]?.runs[key], pick);
  const range = (bench, key, pick) => {
    const xs = (results[bench]?.runs[key] ?? []).map(pick).filter((v) => typeof v === 'number');
    return xs.length > 1 ? [Math.min(...xs), Math.max(...xs)] : undefined;
  };
  /** The median over rounds of pick(system `num`) / pick(system `den`) in the same round. */
  const ratio = (bench, num, den, pick) => {
    const dens = results[bench]?.runs[den] ?? [];
    const rs = (results[bench]?.runs[num] ?? []).map((r, i) =>
      dens[i] ? pick(r) / pick(dens[i]) : Number.NaN,
    );
    return median(rs, (v) => v);
  };
  /** This build's median and range, and each reference build's with the paired ratio of this build to it. */
  const both = (bench, pick) => ({
    a: med(bench, A.key, pick),
    aRange: range(bench, A.key, pick),
    refs: REFS.map((B) => ({
      b: med(bench, B.key, pick),
      bRange: range(bench, B.key, pick),
      ab: ratio(bench, A.key, B.key, pick),
    })),
  });
  const sum = (bench, key, pick) => results[bench]?.runs[key]?.reduce((n, r) => n + pick(r), 0);
  /** PostgreSQL's work per unit (pg_stat_statements and /proc): statements, WAL bytes and CPU, beside the baseline's. */
  function pgRows(bench, unit, baseline) {
    const units = (r) => r.pg?.units ?? (unit === 'create' ? r.created : r.delivered);
    /** @type {[string, (r: any) => number | null | undefined, number][]} */
    const parts = [
      ['statements', (r) => r.pg?.statements, 3],
      ['WAL bytes', (r) => r.pg?.walBytes, 0],
      ['CPU ms', (r) => pgCpuMs(r.cpu, units(r)), 3],
    ];
    for (const [what, pick, digits] of parts) {
      const vs = ratio(bench, A.key, baseline, pick);
      row(`PostgreSQL ${what} per ${unit}`, {
        ...both(bench, pick),
        base: med(bench, baseline, pick),
        relation: x(vs),
        digits,
      });
    }
  }

  if (results.create) {
    const perSecond = (r) => r.perSecond;
    const c = both('create', perSecond);
    for (const [key, goal] of [
      ['pgboss', 1.2],
      ['insert', 0.6],
    ]) {
      const vs = ratio('create', A.key, key, perSecond);
      row(`creates/s, 50 conns, vs ${key === 'pgboss' ? 'pg-boss' : 'insert'} baseline`, {
        ...c,
        base: med('create', key, perSecond),
        relation: x(vs),
        goal: `>= ${goal}x`,
        ok: vs >= goal,
      });
    }
    row(
      'create p99 ms',
      both('create', (r) => r.latency.p99),
    );
    const rss = both('create', (r) => r.rssMiB);
    row('RSS of sched serve after the create run, MiB', {
      ...rss,
      goal: '<= 256 MiB',
      ok: rss.a <= 256,
      digits: 0,
    });
    pgRows('create', 'create', 'pgboss');
  }
  if (results.delivery) {
    const d = both('delivery', (r) => r.perSecondFromDue);
    const vs = ratio('delivery', A.key, 'pgboss-worker', (r) => r.perSecondFromDue);
    row(`deliveries/s, ${fmt(settings.deliveries)} due at once, vs pg-boss worker`, {
      ...d,
      base: med('delivery', 'pgboss-worker', (r) => r.perSecondFromDue),
      relation: x(vs),
      goal: '>= 1.5x',
      ok: vs >= 1.5,
    });
    row('deliveries/s, absolute', { ...d, goal: '>= 3,000/s', ok: d.a >= 3000, digits: 0 });
    pgRows('delivery', 'delivery', 'pgboss-worker');
    const claims = both('delivery', (r) => r.pg?.claims);
    row('claims per delivery, 5,000 due at once', {
      ...claims,
      goal: '<= 1.05',
      ok: claims.a <= 1.05,
      digits: 3,
    });
  }
  // A run left out by --rates has no rows here.
  const latenessRan = (label) => results.lateness?.runs[A.key]?.[0]?.runs[label] !== undefined;
  const p99 = (label) => (r) => r.runs[label].lateness.p99;
  if (latenessRan('idle')) {
    const idle = both('lateness', p99('idle'));
    const floor = med('lateness', 'timer', p99('idle'));
    // The difference to the floor in the same round, median over rounds, as the ratios are.
    const floors = results.lateness.runs.timer;
    const over = median(
      results.lateness.runs[A.key].map((r, i) => p99('idle')(r) - p99('idle')(floors[i])),
      (v) => v,
    );
    row('lateness p99 idle ms, vs timer floor', {
      ...idle,
      base: floor,
      relation: `${over >= 0 ? '+' : ''}${fmt(over)} ms`,
      goal: '<= floor + 10 ms',
      ok: over <= 10,
    });
  }
  if (latenessRan('200/s')) {
    row('lateness p99 at 200 due/s ms', {
      ...both('lateness', p99('200/s')),
      base: med('lateness', 'timer', p99('200/s')),
    });
  }
  if (latenessRan('1,000/s')) {
    const fast = both('lateness', p99('1,000/s'));
    row('lateness p99 at 1,000 due/s ms', {
      ...fast,
      base: med('lateness', 'timer', p99('1,000/s')),
      goal: '<= 100 ms',
      ok: fast.a <= 100,
    });
    const claims = both('lateness', (r) => r.runs['1,000/s'].pg?.claims);
    row('claims per delivery at 1,000 due/s', {
      ...claims,
      goal: '<= 1.05',
      ok: claims.a <= 1.05,
      digits: 3,
    });
    row('PostgreSQL CPU ms per delivery at 1,000 due/s', {
      ...both('lateness', (r) => pgCpuMs(r.runs['1,000/s'].cpu, r.runs['1,000/s'].delivered)),
      digits: 3,
    });
  }
  if (results.lateness || results.delivery) {
    // Every delivery of every run counts here, in every round: one early, lost or doubled is one too many.
    const count = (key, field) =>
      (sum('lateness', key, (r) => Object.values(r.runs).reduce((n, run) => n + run[field], 0)) ?? 0) +
      (sum('delivery', key, (r) => r[field]) ?? 0);
    for (const [field, what] of [
      ['early', 'early deliveries (> 1 ms before due)'],
      ['missing', 'lost deliveries'],
      ['duplicates', 'doubled deliveries'],
    ]) {
      const a = count(A.key, field);
      row(`${what}, all runs`, {
        a,
        refs: REFS.map((B) => ({ b: count(B.key, field) })),
        base: count('timer', field) + count('pgboss-worker', field),
        goal: '0',
        ok: a === 0,
        digits: 0,
      });
    }
  }
  if (results.million) {
    row(`RSS of sched serve after ${fmt(settings.pending)} pending actions, MiB`, {
      ...both('million', (r) => r.pending.rssMiB),
      digits: 0,
    });
    row(
      `creates/s with ${fmt(settings.pending)} pending`,
      both('million', (r) => r.pending.create.perSecond),
    );
  }
  if (results.memory) {
    const m = both('memory', (r) => r.growth * 100);
    // A leak in any round fails the check; the figure is the median growth between the last two runs.
    const leaks = results.memory.runs[A.key].filter((r) => r.leak).length;
    row('leak check: RSS growth between two identical runs, %', {
      ...m,
      relation: leaks ? `${leaks} round(s) grow` : '',
      goal: `<= ${LEAK_TOLERANCE * 100}%, not steadily`,
      ok: leaks === 0,
    });
  }
  if (rows.length) {
    table(
      `summary: medians over ${settings.rounds} round(s); baselines and ${A.label} side by side, goals against the baselines` +
        (REFS.length
          ? `; paired with ${REFS.map((B) => B.label).join(' and ')} (a change should read no worse than the noise between rounds)`
          : ''),
      [
        'figure',
        'baseline',
        A.label,
        'vs baseline',
        'goal',
        '',
        ...REFS.flatMap((B) => [
          B.label,
          `${A.label.replace('sched ', '')} / ${B.label.replace('sched ', '')}`,
        ]),
      ],
      rows,
    );
  }
}

// `node bench/summary.mjs <results.json> [figures.json]`: the tables of a past run again, and its cost-per-unit
// figures (written to figures.json when named), computed by this checkout's bench/keys.mjs.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = JSON.parse(await fs.readFile(String(process.argv[2]), 'utf8'));
  const builds = run.builds.map((b, i) => ({
    key: b.key ?? (i ? 'ref' : 'sched'),
    label: b.label,
    name: b.name,
  }));
  printSummary({ results: run.results, builds, settings: run.settings });
  const figures = runFigures(run.results, builds);
  printFigures(figures, builds);
  if (process.argv[3]) await fs.writeFile(process.argv[3], `${JSON.stringify(figures, null, 2)}\n`);
}
