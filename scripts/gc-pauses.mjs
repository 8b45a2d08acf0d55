#!/usr/bin/env node
/**
 * The garbage collector's pauses against the tail of deliveries at 1,000 due/s (docs/performance.md, "What is left
 * of the tail at 1,000 due/s"): `sched serve` from this checkout's build (`pnpm build` first), as deployed
 * (NODE_ENV=production, the receiver's loopback address allowed) with V8's `--trace-gc`, on a fresh database of the
 * tests' embedded PostgreSQL; N actions (20,000 unless N is set) due one a millisecond, 25 s ahead, to a receiver in
 * this process. Prints the receiver's lateness, the pauses inside the deliveries' window by kind, and how many
 * deliveries later than 20 ms arrived within 60 ms after a pause longer than 5 ms.
 *
 *   N=20000 node scripts/gc-pauses.mjs
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServe } from './serve.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const server = await import(pathToFileURL(join(root, 'server', 'dist', 'index.js')).href);
const N = Number(process.env.N ?? 20_000);
const database = `gc_pauses_${randomBytes(4).toString('hex')}`;
const embedded = await server.ensureEmbeddedPostgres({
  dataDir: join(root, 'test', '.tmp', 'pg-data'),
  database,
});
const dataDir = mkdtempSync(join(tmpdir(), 'sched-gc-pauses-'));

/** [arrival ms, lateness ms] of each delivery. */
const arrivals = [];
const receiver = createServer((req, res) => {
  const at = Date.now();
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    res.end('ok');
    arrivals.push([at, at - JSON.parse(body).due]);
  });
});
await new Promise((ok) => receiver.listen(0, '127.0.0.1', () => ok(undefined)));
const address = receiver.address();
const rx = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const gcLog = join(dataDir, 'gc.log');
const started = Date.now();
const { child, base } = await startServe({
  root,
  nodeArgs: ['--trace-gc'],
  env: {
    ...process.env,
    NODE_ENV: 'production',
    SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1',
    DATABASE_URL: embedded.url,
    SCHED_DATA_DIR: dataDir,
    SCHED_RATE_LIMIT_FACTOR: '100000',
  },
  stdout: openSync(gcLog, 'w'),
});
const apiKey = /SCHED_API_KEY=(\S+)/.exec(readFileSync(join(dataDir, 'credentials'), 'utf8'))?.[1];

const first = Date.now() + 25_000;
const bodies = Array.from({ length: N }, (_, i) => {
  const due = first + i;
  return {
    scheduled_for: new Date(due).toISOString(),
    request: { url: `${rx}/hook`, method: 'POST', body: { due } },
  };
});
for (let i = 0; i < N; i += 1000) {
  const res = await fetch(`${base}/v1/actions/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ actions: bodies.slice(i, i + 1000) }),
  });
  if (res.status >= 300) throw new Error(`batch create answered ${res.status}`);
}
while (arrivals.length < N && Date.now() < first + N + 30_000) await new Promise((r) => setTimeout(r, 500));
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));

const lateness = arrivals.map(([, ms]) => ms).sort((a, b) => a - b);
const at = (q) => lateness[Math.min(lateness.length - 1, Math.floor(q * lateness.length))];
console.log(
  `received ${lateness.length} of ${N}; lateness ms p50 ${at(0.5)}, p99 ${at(0.99)}, p99.9 ${at(0.999)}, max ${lateness.at(-1)}`,
);
// `[pid:isolate]  1234 ms: Scavenge 60.1 (80.2) -> 45.3 (81.0) MB, pooled: 0 MB, 2.51 / 0.00 ms ...`: the time is
// since the process began, the first figure after the sizes is the pause.
const pauses = [];
for (const line of readFileSync(gcLog, 'utf8').split('\n')) {
  const m = /\]\s+(\d+) ms: ([A-Za-z-]+(?: \(reduce\))?) [^,]*,[^,]*,\s*([\d.]+) \/ [\d.]+ ms/.exec(line);
  if (m) pauses.push({ at: started + Number(m[1]), kind: m[2], ms: Number(m[3]) });
}
const inWindow = pauses.filter((p) => p.at >= first && p.at <= first + N);
const byKind = {};
for (const p of inWindow) {
  const k = byKind[p.kind] ?? { pauses: 0, totalMs: 0, maxMs: 0 };
  byKind[p.kind] = k;
  k.pauses += 1;
  k.totalMs = Math.round((k.totalMs + p.ms) * 100) / 100;
  k.maxMs = Math.max(k.maxMs, p.ms);
}
console.log(`pauses during the deliveries: ${JSON.stringify(byKind)}`);
const long = inWindow.filter((p) => p.ms > 5);
const late = arrivals.filter(([, ms]) => ms > 20);
const afterPause = late.filter(([t]) => long.some((p) => t >= p.at - 5 && t <= p.at + p.ms + 60));
console.log(
  `later than 20 ms: ${late.length}, of them within 60 ms after a pause over 5 ms: ${afterPause.length}`,
);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
