// Runs the benchmarks: `node bench/run.mjs [create|lateness|delivery|memory|million|batch|backlog|idle ...] [--seconds N]
// [--rounds N] [--deliveries N] [--pending N] [--rates 10,200,1000] [--log-level L] [--json <file>] [--smoke]` (all
// benchmarks when none is named). `--rates` keeps only those of the lateness benchmark's runs (due a second; the run
// under creates goes with the idle run, 10), to pair builds on one run in a fraction of the time. `--smoke` runs them at tiny sizes with no timing goal (test/e2e/bench-smoke.test.ts does, in CI), so a
// change that breaks a benchmark fails the same day; `--json` also writes the cost-per-unit figures (bench/keys.mjs)
// to that file. Every benchmark measures the baselines (bench/baselines/) and sched (and, with
// BENCH_SCHED_ROOT=<root>[,<root>...], other sched builds, each a system of every round) on one PostgreSQL, alternating
// the order across rounds; then one table sets sched beside the baselines with the ratios and their goals,
// and all figures are written as JSON to bench/.tmp/results-<time>.json. See docs/performance.md for the method.
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { printFigures, runFigures } from './keys.mjs';
import { RATES as LATENESS_RATES } from './lateness.mjs';
import {
  BUILDS,
  log,
  machine,
  roleLayout,
  serverMode,
  settings,
  startPostgres,
  TMP,
  unsupported,
} from './lib.mjs';
import { printSummary } from './summary.mjs';

/** Tiny sizes: every statement of every benchmark runs once or a few times, in about a minute for all of them. */
const SMOKE = { smoke: true, seconds: 1, rounds: 1, deliveries: 200, pending: 2_000 };

const BENCHMARKS = ['create', 'lateness', 'delivery', 'memory', 'million', 'batch', 'backlog', 'idle'];

const { values: flags, positionals: names } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    deliveries: { type: 'string' },
    pending: { type: 'string' },
    rates: { type: 'string' },
    'log-level': { type: 'string' },
    json: { type: 'string' },
    smoke: { type: 'boolean' },
  },
});
if (flags.smoke) Object.assign(settings, SMOKE);
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
if (flags.rates) {
  const rates = flags.rates.split(',').map(Number);
  if (!rates.every((r) => LATENESS_RATES.some((x) => x.perSecond === r))) {
    process.stderr.write(`--rates takes some of ${LATENESS_RATES.map((r) => r.perSecond).join(',')}\n`);
    process.exit(2);
  }
  settings.rates = rates;
}
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
  builds: await Promise.all(BUILDS.map(async (b) => ({ ...b, ...(await serverMode(b.root)) }))),
  database: process.env.BENCH_DATABASE_URL
    ? 'BENCH_DATABASE_URL (a fresh database per system)'
    : 'one embedded PostgreSQL 17 for the run (a fresh database per system)',
  roles: roleLayout().label,
  settings: { ...settings },
};
process.stdout.write(
  `sched benchmarks ${header.date}\n  machine: ${header.machine}\n  database: ${header.database}\n` +
    header.builds
      .map(
        (b) =>
          `  ${b.label} (${b.root}): serve --role ${roleLayout().label}, NODE_ENV=${b.nodeEnv}, response validation ${b.validateResponses ? 'on' : 'off'}\n`,
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
    for (const u of unsupported) u.benchmark ??= name;
    log(`=== ${name} took ${Math.round((Date.now() - t0) / 1000)} s`);
  }
} finally {
  await postgres.stop();
}

// The measurements are written before anything reads them, so a fault in the tables below loses no run.
await fs.mkdir(TMP, { recursive: true });
const file = path.join(TMP, `results-${started.toISOString().replace(/[:.]/g, '-')}.json`);
await fs.writeFile(file, `${JSON.stringify({ ...header, unsupported, results }, null, 2)}\n`);

printSummary({ results, builds: BUILDS, settings });
const figures = runFigures(results, BUILDS);
printFigures(figures, BUILDS);
// A reference build that could not run a benchmark has no figures from it: n/a, with the reason.
for (const u of unsupported)
  process.stdout.write(`\nn/a: ${u.build} could not run ${u.benchmark}: ${u.reason}\n`);
if (flags.json) {
  await fs.mkdir(path.dirname(path.resolve(flags.json)), { recursive: true });
  const json = unsupported.length ? { ...figures, unsupported } : figures;
  await fs.writeFile(flags.json, `${JSON.stringify(json, null, 2)}\n`);
}

await fs.writeFile(file, `${JSON.stringify({ ...header, unsupported, figures, results }, null, 2)}\n`);
process.stdout.write(
  `\nfigures written to ${path.relative(process.cwd(), file)}; total ${Math.round((Date.now() - started.getTime()) / 1000)} s\n`,
);
process.exit(failed ? 1 : 0);
