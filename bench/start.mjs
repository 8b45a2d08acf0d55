// Benchmark "start": what a start of `sched serve` costs, from the spawn to "listening on", in CPU (the process's
// user and system time, read from /proc when it listens) and on the wall. Each build (this checkout, and those of
// BENCH_SCHED_ROOT) starts once on a fresh database of a throwaway PostgreSQL to migrate it, then ROUNDS times
// more, the builds alternating, each start stopped with SIGTERM before the next. This checkout also starts with
// Node's compile cache turned off (NODE_DISABLE_COMPILE_CACHE=1), to tell the cache's share from the rest.
//
//   node bench/start.mjs [--rounds 9]
//   BENCH_SCHED_ROOT=<another checkout, built> node bench/start.mjs
//
// Linux only (/proc). A start is mostly loading code; the figures swing with the machine's load, so compare builds
// within one run (docs/performance.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BUILDS, log, nowMs, procStat, startPostgres, summarize, table, TMP } from './lib.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 9);
/** One start of `build` on `databaseUrl`: its CPU and wall time to "listening on", then a SIGTERM. */
async function startOnce(build, databaseUrl, env = {}) {
  const dataDir = await fs.mkdtemp(path.join(TMP, 'start-'));
  const t0 = nowMs();
  const child = spawn(process.execPath, [path.join(build.root, 'cli', 'dist', 'bin.js'), 'serve'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      SCHED_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/listening on /.test(out)) resolve(undefined);
      });
      child.stderr.on('data', (d) => {
        out += d;
      });
      void exited.then(() =>
        reject(new Error(`${build.label} exited before listening:\n${out.slice(-2000)}`)),
      );
    });
    const wallMs = nowMs() - t0;
    const stat = await procStat(child.pid ?? 0);
    if (!stat) throw new Error('no /proc/<pid>/stat: this benchmark reads CPU time on Linux only');
    return { cpuMs: Math.round(stat.cpu * 1000), wallMs };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const postgres = await startPostgres();
try {
  /** @type {{ label: string, build: (typeof BUILDS)[number], env: Record<string, string>, databaseUrl: string, samples: { cpuMs: number, wallMs: number }[] }[]} */
  const systems = [];
  const variants = [
    ...BUILDS.map((build) => ({ label: build.label, build, env: {} })),
    {
      label: `${BUILDS[0].label}, no compile cache`,
      build: BUILDS[0],
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    },
  ];
  for (const variant of variants) {
    const database = await postgres.createDatabase(`start_${variant.build.key}_${systems.length}`);
    const system = { ...variant, databaseUrl: database.url, samples: [] };
    // The first start migrates its database (and fills the compile cache): not a start the figures count.
    await startOnce(system.build, system.databaseUrl, system.env);
    systems.push(system);
  }
  for (let round = 0; round < ROUNDS; round++) {
    // The order turns each round, so that no system always follows the same one.
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const system of order)
      system.samples.push(await startOnce(system.build, system.databaseUrl, system.env));
    log(`round ${round + 1}/${ROUNDS}`);
  }
  const base = summarize(systems[0].samples.map((s) => s.cpuMs)).p50;
  table(
    `A start of sched serve, spawn to listening (${ROUNDS} starts each; medians, CPU in ms of one core)`,
    ['build', 'CPU ms', 'CPU min-max', 'wall ms', 'CPU / this build'],
    systems.map((system) => {
      const cpu = summarize(system.samples.map((s) => s.cpuMs));
      const wall = summarize(system.samples.map((s) => s.wallMs));
      return [
        system.label,
        cpu.p50,
        `${cpu.min}-${cpu.max}`,
        Math.round(wall.p50),
        (cpu.p50 / base).toFixed(2),
      ];
    }),
  );
} finally {
  await postgres.stop();
}
