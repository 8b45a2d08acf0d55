import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
