import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/server.js';

/*
 * The benchmarks at tiny sizes (`node bench/run.mjs ... --smoke`): every phase, seed and statement of the create,
 * delivery and backlog benchmarks runs once against this build, so a migration or an API change that breaks a
 * benchmark fails CI the same day. No figure is judged here (timing goals belong to a full run on a quiet machine);
 * what is checked is that the run completes, loses and doubles nothing, and writes every key of its JSON.
 */

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sched-bench-smoke-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The keys of `--json` that these three benchmarks fill (bench/keys.mjs lists them all). */
const FILLED = [
  'delivery.cpu_ms_per_delivery',
  'delivery.baseline_cpu_ms_per_delivery',
  'delivery.cpu_ratio',
  'delivery.wal_bytes_per_delivery',
  'delivery.non_hot_updates_per_delivery',
  'delivery.per_second',
  'delivery.mixed_cpu_ms_per_delivery',
  'delivery.https_cpu_ms_per_delivery',
  'delivery.https_handshakes_per_delivery',
  'create.cpu_ms_per_create',
  'create.insert_baseline_cpu_ms_per_create',
  'create.cpu_ratio_vs_insert',
  'create.wal_bytes_per_create',
  'create.audit_wal_bytes_per_create',
  'create.per_second',
  'backlog.create_cpu_ratio',
  'backlog.create_wal_ratio',
  'backlog.lateness_p99_delta_ms',
  'backlog.inbox_p99_ms',
  'backlog.retention_seconds_per_million',
];
/** Keys of the benchmarks not run here: present, and null. */
const EMPTY = [
  'lateness.p99_ms_idle',
  'lateness.p99_ms_at_1000',
  'lateness.cpu_ms_per_delivery_at_1000',
  'lateness.p99_ms_under_creates',
  'idle.cpu_percent',
];

describe('bench/run.mjs --smoke', () => {
  it('runs the create, delivery and backlog benchmarks and writes every key of its JSON', async () => {
    const file = join(dir, 'figures.json');
    const { stdout } = await run(
      process.execPath,
      ['bench/run.mjs', 'create', 'delivery', 'backlog', '--smoke', '--json', file],
      { cwd: repoRoot, env: { ...process.env, BENCH_SCHED_ROOT: '' }, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).not.toContain('FAILED');
    // sched runs as deployed: in production, its SSRF guard on, loopback named as an allowed private network.
    expect(stdout).toMatch(/: serve --role [^\n]*, NODE_ENV=production, response validation off\n/);
    const figures = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const key of FILLED) expect.soft(figures[key], key).toEqual(expect.any(Number));
    for (const key of EMPTY) expect.soft(figures[key], key).toBeNull();
    // Every delivery of every burst arrived once: none lost, none doubled (the summary's rows).
    expect(stdout).toMatch(/lost deliveries, all runs\s+0\s+0\s+0/);
    expect(stdout).toMatch(/doubled deliveries, all runs\s+0\s+0\s+0/);
    // The seeded history of a month past retention went with its attempts (the rest of what is past 365 days waits
    // for its month), and the mixed burst's callbacks arrived.
    expect(stdout).toMatch(
      /retention: [1-9][\d,]* actions and [1-9][\d,]* attempts removed in [\d.]+ s \([\d,]+ s per million actions;/,
    );
    expect(stdout).toMatch(/#1\s+mixed\s+(\d+)\s+0\s+0\s+[1-9]/);
  }, 180_000);
});

describe('bench/start.mjs', () => {
  it('times starts of this build to listening, with and without the compile cache', async () => {
    const { stdout } = await run(process.execPath, ['bench/start.mjs', '--rounds', '1'], {
      cwd: repoRoot,
      env: { ...process.env, BENCH_SCHED_ROOT: '' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const rows = stdout.split('\n').filter((line) => line.startsWith('sched '));
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('no compile cache');
    // Each row: a CPU median in ms, its range, the wall median, the ratio to this build (1.00 for itself).
    for (const row of rows) expect(row).toMatch(/\s[1-9][\d,]*\s+[\d,]+-[\d,]+\s+[1-9][\d,]*\s+\d\.\d\d$/);
    expect(rows[0]).toMatch(/\s1\.00$/);
  }, 120_000);
});

/** One round of a system in the delivery benchmark, as bench/delivery.mjs records it, costing `k` times a unit. */
const deliveryRound = (round: number, k: number) => ({
  round,
  delivered: 100,
  perSecondFromDue: 1000 / k,
  early: 0,
  missing: 0,
  duplicates: 0,
  cpu: { seconds: 1, server: 5 * k, postgres: 5 * k },
  pg: { units: 100, walBytes: 1000 * k, nonHotUpdates: k, statements: 0.5 },
});

describe('bench/summary.mjs, paired with several builds', () => {
  /** The tables and the JSON of a recorded run of this build and `refs` (each costing k times a unit). */
  async function summarize(name: string, refs: [string, number][]) {
    const builds = [
      { key: 'sched', label: 'sched this' },
      ...refs.map(([label], i) => ({ key: i ? `ref${i + 1}` : 'ref', label: `sched ${label}`, name: label })),
    ];
    // Round 2 of each build costs 1.5x its round 1: each figure is a median with its range.
    const costs: [string, number][] = [
      ['sched', 1],
      ...refs.map(([, k], i): [string, number] => [i ? `ref${i + 1}` : 'ref', k]),
      ['pgboss-worker', 0.5],
    ];
    const runs = Object.fromEntries(
      costs.map(([key, k]) => [key, [deliveryRound(1, k), deliveryRound(2, k * 1.5)]]),
    );
    const results = join(dir, `${name}-results.json`);
    const figuresFile = join(dir, `${name}-figures.json`);
    writeFileSync(
      results,
      JSON.stringify({ builds, settings: { rounds: 2, deliveries: 100 }, results: { delivery: { runs } } }),
    );
    const { stdout } = await run(process.execPath, ['bench/summary.mjs', results, figuresFile], {
      cwd: repoRoot,
    });
    return { stdout, figures: JSON.parse(readFileSync(figuresFile, 'utf8')) as Record<string, any> };
  }

  it('gives each reference build a column of its own and an object under refs', async () => {
    const { stdout, figures } = await summarize('three', [
      ['c081757', 2],
      ['188718b', 3],
    ]);
    expect(stdout).toContain('paired with sched c081757 and sched 188718b');
    // This build's WAL per delivery (median of 1,000 and 1,500), then each build's with this one's ratio to it.
    expect(stdout).toMatch(
      /PostgreSQL WAL bytes per delivery .* 1,250 \[1,000-1,500\] .* 2,500 \[2,000-3,000\] +0\.5x +3,750 \[3,000-4,500\] +0\.33x/,
    );
    expect(figures['delivery.wal_bytes_per_delivery']).toBe(1250);
    expect(figures.ref).toBeUndefined();
    expect(figures.refs.c081757['delivery.wal_bytes_per_delivery']).toBe(2500);
    expect(figures.refs['188718b']['delivery.wal_bytes_per_delivery']).toBe(3750);
    expect(figures.refs['188718b'].ranges['delivery.non_hot_updates_per_delivery']).toEqual([3, 4.5]);
    // Against the pg-boss worker's same round: this build costs twice, 188718b six times.
    expect(figures['delivery.cpu_ratio']).toBe(2);
    expect(figures.refs['188718b']['delivery.cpu_ratio']).toBe(6);
  });

  it('keeps one reference build under ref, as before', async () => {
    const { stdout, figures } = await summarize('two', [['c081757', 2]]);
    expect(stdout).toContain('paired with sched c081757 (');
    expect(figures.refs).toBeUndefined();
    expect(figures.ref['delivery.wal_bytes_per_delivery']).toBe(2500);
  });
});
