#!/usr/bin/env node
/**
 * Where a delivery's server CPU goes (docs/performance.md, "Why a delivery costs more than 188718b's"): `sched serve`
 * of a build (this checkout's unless a root is given; `pnpm build` first) with V8's `--cpu-prof`, on a fresh database
 * of the tests' embedded PostgreSQL, delivers a warm-up of 1,000 and then N actions (10,000 unless given) due at one
 * moment to a loopback receiver in this process. Prints the busy time per delivery of the burst's sending (from the
 * first sample in undici to the last), by package or file, then by function.
 *
 *   node scripts/delivery-profile.mjs [<build root>] [N]
 *
 * Both roles run in development mode, so that builds from before `SCHED_ALLOWED_PRIVATE_NETWORKS` reach loopback too.
 */
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busySummary, profiledServer, samplesOf } from './cpu-profile.mjs';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');
const root = resolve(process.argv[2] ?? here);
const N = Number(process.argv[3] ?? 10_000);

let arrivals = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals += 1;
    res.end('ok');
  });
});
await new Promise((ok) => receiver.listen(0, '127.0.0.1', () => ok(undefined)));
const address = receiver.address();
const rx = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const server = await profiledServer({
  root,
  name: 'delivery-profile',
  env: {
    NODE_ENV: 'development',
    // The one a build knows: loopback allowed (newer builds), or every private destination (older ones).
    SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1/32',
    SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true',
  },
});

/** `count` actions due at one moment `leadMs` ahead, created in batches; resolves once all have arrived. */
async function burst(count, leadMs) {
  const due = Date.now() + leadMs;
  const body = { scheduled_for: new Date(due).toISOString(), request: { url: `${rx}/hook`, body: { due } } };
  for (let i = 0; i < count; i += 1000) {
    const res = await fetch(`${server.base}/v1/actions/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ actions: Array.from({ length: Math.min(1000, count - i) }, () => body) }),
    });
    if (res.status >= 300) throw new Error(`batch create answered ${res.status}`);
  }
  const target = arrivals + count;
  while (arrivals < target && Date.now() < due + 120_000) await new Promise((r) => setTimeout(r, 200));
  if (arrivals < target) throw new Error(`${target - arrivals} deliveries did not arrive`);
}
await burst(1000, 4000);
await new Promise((r) => setTimeout(r, 2000));
await burst(N, 8000);
const samples = samplesOf(await server.stop());

// The burst's sending: the last run of samples in undici with no gap over 1.5 s (the warm-up is the first).
const marks = samples.filter((s) => s.within((url) => url.includes('undici'))).map((s) => s.at);
let from = marks[0] ?? 0;
let to = from;
for (const m of marks) {
  if (m - to > 1_500_000) from = m;
  to = m;
}
console.log(`${root}: ${N} deliveries, the sending ${((to - from) / 1000).toFixed(0)} ms long`);
console.log(busySummary(samples, { from, to, units: N, unit: 'delivery' }));
process.exit(0);
