// Runs the benchmarks: `node bench/run.mjs [create|lateness|delivery|memory|million ...] [--seconds N] [--rounds N]
// [--deliveries N] [--pending N] [--log-level L]` (all benchmarks when none is named). Every benchmark measures the
// baselines of issue 12 and sched (and, with BENCH_SCHED_ROOT, a second sched build) on one PostgreSQL, alternating
// the order across rounds; then one table sets sched beside the baselines with the ratios and the goals of issue 12,
// and all figures are written as JSON to bench/.tmp/results-<time>.json. See docs/performance.md for the method.
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BUILDS, fmt, log, machine, serverNodeEnv, settings, startPostgres, table, TMP } from './lib.mjs';
import { median } from './systems.mjs';
import { LEAK_TOLERANCE } from './memory.mjs';

const BENCHMARKS = ['create', 'lateness', 'delivery', 'memory', 'million'];

const { values: flags, positionals: names } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    deliveries: { type: 'string' },
    pending: { type: 'string' },
    'log-level': { type: 'string' },
  },
});
const positive = (flag) => {
  const n = Number(flags[flag]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`--${flag} takes a whole number of at least 1\n`);
    process.exit(2);
  }
  return n;
};
for (const flag of ['seconds', 'rounds', 'deliveries', 'pending'])
  if (flags[flag]) settings[flag] = positive(flag);
if (flags['log-level']) settings.logLevel = flags['log-level'];
for (const n of names) {
  if (!BENCHMARKS.includes(n)) {
    process.stderr.write(`unknown benchmark '${n}'; choose from: ${BENCHMARKS.join(', ')}\n`);
    process.exit(2);
  }
}
const selected = names.length ? BENCHMARKS.filter((n) => names.includes(n)) : BENCHMARKS;
for (const build of BUILDS) {
  try {
    await fs.access(path.join(build.root, 'cli', 'dist', 'bin.js'));
  } catch {
    process.stderr.write(`no build in ${build.root}: run \`pnpm build\` there first\n`);
    process.exit(2);
  }
}

const started = new Date();
const header = {
  date: started.toISOString(),
  machine: machine(),
  builds: BUILDS.map((b) => ({ label: b.label, root: b.root, nodeEnv: undefined })),
  database: process.env.BENCH_DATABASE_URL
    ? 'BENCH_DATABASE_URL (a fresh database per system)'
    : 'one embedded PostgreSQL 17 for the run (a fresh database per system)',
  roles: process.env.BENCH_ROLES === 'split' ? 'api + worker' : 'all',
  settings: { ...settings },
};
for (const b of header.builds) b.nodeEnv = await serverNodeEnv(b.root);
process.stdout.write(
  `sched benchmarks ${header.date}\n  machine: ${header.machine}\n  database: ${header.database}\n` +
    header.builds
      .map(
        (b) =>
          `  ${b.label} (${b.root}): ${process.env.BENCH_ROLES === 'split' ? 'serve --role api + --role worker' : 'serve --role all'}, NODE_ENV=${b.nodeEnv}${b.nodeEnv === 'production' ? '' : ' (response validation on)'}\n`,
      )
      .join('') +
    `  ${settings.seconds} s of load per system, ${settings.rounds} round(s), order alternating; ` +
    `sched LOG_LEVEL=${settings.logLevel ?? 'default'}\n`,
);

const results = {};
let failed = false;
const postgres = await startPostgres();
try {
  for (const name of selected) {
    const t0 = Date.now();
    log(`=== ${name}`);
    try {
      const mod = await import(`./${name}.mjs`);
      Object.assign(results, await mod.run({ postgres }));
    } catch (err) {
      failed = true;
      process.stdout.write(`\n${name}: FAILED: ${err.stack ?? err}\n`);
    }
    log(`=== ${name} took ${Math.round((Date.now() - t0) / 1000)} s`);
  }
} finally {
  await postgres.stop();
}

// ---------------------------------------------------------------- one table: baselines, sched, ratios, goals
const [A, B] = BUILDS;
const rows = [];
const x = (v) => (v === undefined ? '-' : `${fmt(v, 2)}x`);
/**
 * One figure: the baseline's median, sched's median, their relation, the goal and whether it is met, and with a
 * second build its median and sched/ref.
 */
function row(figure, { base, a, b, relation = '', goal = '(reported)', ok, digits = 1 }) {
  rows.push([
    figure,
    base === undefined ? '-' : fmt(base, digits),
    a === undefined ? '-' : fmt(a, digits),
    relation,
    goal,
    ok === undefined || a === undefined ? '' : ok ? 'met' : 'MISSED',
    ...(B
      ? [b === undefined ? '-' : fmt(b, digits), a === undefined || b === undefined ? '-' : x(a / b)]
      : []),
  ]);
}
const med = (bench, key, pick) => median(results[bench]?.runs[key], pick);
const both = (bench, pick) => ({ a: med(bench, A.key, pick), b: B && med(bench, B.key, pick) });
const sum = (bench, key, pick) => results[bench]?.runs[key]?.reduce((n, r) => n + pick(r), 0);

if (results.create) {
  const perSecond = (r) => r.perSecond;
  const c = both('create', perSecond);
  for (const [key, goal] of [
    ['pgboss', 1.2],
    ['insert', 0.6],
  ]) {
    const base = med('create', key, perSecond);
    row(`creates/s, 50 conns, vs ${key === 'pgboss' ? 'pg-boss' : 'insert'} baseline`, {
      ...c,
      base,
      relation: x(c.a / base),
      goal: `>= ${goal}x`,
      ok: c.a / base >= goal,
    });
  }
  row(
    'create p99 ms',
    both('create', (r) => r.latency.p99),
  );
  row('RSS of sched serve after the create run, MiB', { ...both('create', (r) => r.rssMiB), digits: 0 });
}
if (results.delivery) {
  const d = both('delivery', (r) => r.perSecondFromDue);
  const base = med('delivery', 'pgboss-worker', (r) => r.perSecondFromDue);
  row(`deliveries/s, ${fmt(settings.deliveries)} due at once, vs pg-boss worker`, {
    ...d,
    base,
    relation: x(d.a / base),
    goal: '>= 1.5x',
    ok: d.a / base >= 1.5,
  });
  row('deliveries/s, absolute', { ...d, goal: '>= 3,000/s', ok: d.a >= 3000, digits: 0 });
}
if (results.lateness) {
  const p99 = (label) => (r) => r.runs[label].lateness.p99;
  const idle = both('lateness', p99('idle'));
  const floor = med('lateness', 'timer', p99('idle'));
  const over = idle.a - floor;
  row('lateness p99 idle ms, vs timer floor', {
    ...idle,
    base: floor,
    relation: `${over >= 0 ? '+' : ''}${fmt(over)} ms`,
    goal: '<= floor + 10 ms',
    ok: over <= 10,
  });
  row('lateness p99 at 200 due/s ms', {
    ...both('lateness', p99('200/s')),
    base: med('lateness', 'timer', p99('200/s')),
  });
  const fast = both('lateness', p99('1,000/s'));
  row('lateness p99 at 1,000 due/s ms', {
    ...fast,
    base: med('lateness', 'timer', p99('1,000/s')),
    goal: '<= 100 ms',
    ok: fast.a <= 100,
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
      b: B && count(B.key, field),
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
  row('leak check: RSS growth between two identical runs, %', {
    ...m,
    goal: `<= ${LEAK_TOLERANCE * 100}%`,
    ok: m.a <= LEAK_TOLERANCE * 100,
  });
}
if (rows.length) {
  table(
    `summary: medians over ${settings.rounds} round(s); baselines and ${A.label} side by side, goals of issue 12` +
      (B ? `; paired with ${B.label} (issue 14: no worse than the noise between rounds)` : ''),
    [
      'figure',
      'baseline',
      A.label,
      'vs baseline',
      'goal',
      '',
      ...(B ? [B.label, `${A.label.replace('sched ', '')} / ${B.label.replace('sched ', '')}`] : []),
    ],
    rows,
  );
}

await fs.mkdir(TMP, { recursive: true });
const file = path.join(TMP, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`);
await fs.writeFile(file, `${JSON.stringify({ ...header, results }, null, 2)}\n`);
process.stdout.write(
  `\nfigures written to ${path.relative(process.cwd(), file)}; total ${Math.round((Date.now() - started.getTime()) / 1000)} s\n`,
);
process.exit(failed ? 1 : 0);
