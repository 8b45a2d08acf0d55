// Benchmark "batch": actions/s through POST /v1/actions/batch (1,000 a request) against single creates
// (POST /v1/actions at 50 connections), on the same server in the same run. Goal: batches >= 5x.
// BENCH_BATCH_SIZE (default 1000) and BENCH_BATCH_CONNECTIONS (default 4) shrink or widen it.
import { fmt, inRounds, loadLoop, log, settings, table } from './lib.mjs';
import { measureCreate } from './create.mjs';
import { labels, schedSystems } from './systems.mjs';

const SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 4);
const GOAL = 5;
const UNREACHED_URL = 'http://127.0.0.1:9/never';

/** One batch body of SIZE webhooks due an hour or more ahead (beyond the announce window, as single creates). */
function batchBody(base, n) {
  return JSON.stringify({
    actions: Array.from({ length: SIZE }, (_, k) => {
      const due = base + (n * SIZE + k) * 7;
      return { request: { url: UNREACHED_URL, body: { due } }, scheduled_for: new Date(due).toISOString() };
    }),
  });
}

async function measureBatches(stack) {
  const base = Date.now() + 3_600_000;
  const send = async (i) => {
    const res = await stack.api.request({
      path: '/v1/actions/batch',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.apiKey}` },
      body: batchBody(base, i),
    });
    await res.body.text();
    return { status: res.statusCode };
  };
  log(`batch: measuring ${settings.seconds} s of ${SIZE}-action batches at ${CONNECTIONS} connections`);
  const r = await loadLoop({ concurrency: CONNECTIONS, durationMs: settings.seconds * 1000, send });
  const ok = r.statuses.get(201) ?? 0;
  return {
    batches: ok,
    created: ok * SIZE,
    perSecond: (ok * SIZE) / (r.elapsedMs / 1000),
    otherStatuses: Object.fromEntries([...r.statuses].filter(([s]) => s !== 201)),
    errors: Object.fromEntries(r.errors),
  };
}

export async function run({ postgres }) {
  const systems = schedSystems('batch', postgres);
  const runs = await inRounds(systems, async (system) => {
    const stack = await system.start();
    try {
      const single = await measureCreate(stack);
      const batch = await measureBatches(stack);
      return { single, batch, ratio: batch.perSecond / single.perSecond };
    } finally {
      await stack.stop();
    }
  });
  const rows = [];
  for (const s of systems)
    for (const r of runs[s.key] ?? [])
      rows.push([
        s.label,
        r.round,
        fmt(r.single.perSecond, 0),
        fmt(r.batch.perSecond, 0),
        `${fmt(r.ratio, 2)}x (goal >= ${GOAL}x)`,
        JSON.stringify({ ...r.single.otherStatuses, ...r.batch.otherStatuses, ...r.batch.errors }),
      ]);
  table(
    `batch: single creates (50 connections) vs batches of ${SIZE} (${CONNECTIONS} connections), ${settings.seconds} s each`,
    ['system', 'round', 'single actions/s', 'batch actions/s', 'batch / single', 'non-201'],
    rows,
  );
  return { batch: { systems: labels(systems), runs, size: SIZE, connections: CONNECTIONS, goal: GOAL } };
}
