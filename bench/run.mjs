// Runs the benchmarks: `node bench/run.mjs [create|lateness|delivery|million ...]` (all when none is named).
// Prints each benchmark's tables, then the figures against the goals of issue 3, and writes them as JSON to
// bench/.tmp/results-<time>.json. See docs/performance.md for the method.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fmt, log, machine, ROOT, SCHED_ROOT, serverNodeEnv, table, TMP } from './lib.mjs';

const BENCHMARKS = ['create', 'lateness', 'delivery', 'million'];

const names = process.argv.slice(2);
for (const n of names) {
  if (!BENCHMARKS.includes(n)) {
    process.stderr.write(`unknown benchmark '${n}'; choose from: ${BENCHMARKS.join(', ')}\n`);
    process.exit(2);
  }
}
const selected = names.length ? BENCHMARKS.filter((n) => names.includes(n)) : BENCHMARKS;
try {
  await fs.access(path.join(SCHED_ROOT, 'cli', 'dist', 'bin.js'));
} catch {
  process.stderr.write(`no build in ${SCHED_ROOT}: run \`node_modules/.bin/tsc -b\` there first\n`);
  process.exit(2);
}

function buildLabel() {
  if (process.env.BENCH_LABEL) return process.env.BENCH_LABEL;
  try {
    const git = (...args) => execFileSync('git', ['-C', SCHED_ROOT, ...args], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no') ? ' + uncommitted changes' : '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  } catch {
    return SCHED_ROOT;
  }
}

const started = new Date();
const header = {
  date: started.toISOString(),
  machine: machine(),
  build: buildLabel(),
  database: process.env.BENCH_DATABASE_URL
    ? 'BENCH_DATABASE_URL'
    : 'embedded PostgreSQL 17 (fresh per benchmark)',
  nodeEnv: await serverNodeEnv(),
  roles: process.env.BENCH_ROLES === 'split' ? 'api + worker' : 'all',
};
process.stdout.write(
  `sched benchmarks ${header.date}\n  machine: ${header.machine}\n  build: ${header.build}` +
    `${SCHED_ROOT !== ROOT ? ` (${SCHED_ROOT})` : ''}\n  database: ${header.database}\n` +
    `  server: ${process.env.BENCH_ROLES === 'split' ? 'two processes, role api + role worker' : 'one process, role all'}, NODE_ENV=${header.nodeEnv}${header.nodeEnv === 'production' ? '' : ' (response validation on)'}\n`,
);

const results = {};
let failed = false;
for (const name of selected) {
  const t0 = Date.now();
  log(`=== ${name}`);
  try {
    const mod = await import(`./${name}.mjs`);
    Object.assign(results, await mod.run());
  } catch (err) {
    failed = true;
    process.stdout.write(`\n${name}: FAILED: ${err.stack ?? err}\n`);
  }
  log(`=== ${name} took ${Math.round((Date.now() - t0) / 1000)} s`);
}

// Figures against the goals of issue 3 ("Precision and speed").
const rows = [];
const goal = (what, value, target, ok, unit = '') =>
  rows.push([
    what,
    value === undefined ? '-' : `${fmt(value)}${unit}`,
    target,
    value === undefined ? '-' : ok ? 'met' : 'MISSED',
  ]);
const r = results;
if (r.create) {
  goal('creates/s, 50 connections', r.create.perSecond, '>= 2,000', r.create.perSecond >= 2000);
  goal('create p99 latency', r.create.latency.p99, '(reported)', true, ' ms');
}
if (r.latenessIdle)
  goal(
    'lateness p99, idle',
    r.latenessIdle.lateness.p99,
    '<= 100 ms',
    r.latenessIdle.lateness.p99 <= 100,
    ' ms',
  );
if (r.latenessLoaded)
  goal(
    'lateness p99, 200 due/s',
    r.latenessLoaded.lateness.p99,
    '<= 250 ms',
    r.latenessLoaded.lateness.p99 <= 250,
    ' ms',
  );
if (r.delivery)
  goal(
    'deliveries/s (from due moment)',
    r.delivery.perSecondFromDue,
    '>= 1,000',
    r.delivery.perSecondFromDue >= 1000,
  );
// The 1M comparison is against the empty-table figures of the same server (million measures both).
const within10 = (million, empty, higherIsBetter) =>
  higherIsBetter ? million >= empty * 0.9 : million <= empty * 1.1;
const vs = (m, e) => ` (empty ${fmt(e)}, ${m >= e ? '+' : ''}${fmt(((m - e) / e) * 100)}%)`;
if (r.millionBase) {
  const b = r.millionBase;
  const pairs = [
    ['1M pending: creates/s', r.millionCreate.perSecond, b.create.perSecond, true, ''],
    ['1M pending: create p99', r.millionCreate.latency.p99, b.create.latency.p99, false, ' ms'],
    ['1M pending: lateness p99, idle', r.millionLatenessIdle.lateness.p99, b.idle.lateness.p99, false, ' ms'],
    [
      '1M pending: lateness p99, 200 due/s',
      r.millionLatenessLoaded.lateness.p99,
      b.loaded.lateness.p99,
      false,
      ' ms',
    ],
  ];
  for (const [what, m, e, higher, unit] of pairs) {
    rows.push([what, `${fmt(m)}${unit}${vs(m, e)}`, 'within 10%', within10(m, e, higher) ? 'met' : 'MISSED']);
  }
}
if (rows.length) table('summary against the goals (issue 3)', ['figure', 'measured', 'goal', ''], rows);

await fs.mkdir(TMP, { recursive: true });
const file = path.join(TMP, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`);
await fs.writeFile(file, `${JSON.stringify({ ...header, results }, null, 2)}\n`);
process.stdout.write(
  `\nfigures written to ${path.relative(process.cwd(), file)}; total ${Math.round((Date.now() - started.getTime()) / 1000)} s\n`,
);
process.exit(failed ? 1 : 0);
