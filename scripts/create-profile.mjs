#!/usr/bin/env node
/**
 * Where a create's server CPU goes: `sched serve` of a build (this checkout's unless a root is given; `pnpm build`
 * first) with V8's `--cpu-prof`, in production mode, on a fresh database of the tests' embedded PostgreSQL, takes
 * `POST /v1/actions` from 50 connections for a 2 s warm-up and then SECONDS (8 unless given), each a webhook due in
 * an hour. Prints the busy time per create of the measured window, by package or file, then by function.
 *
 *   node scripts/create-profile.mjs [<build root>] [SECONDS]
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busySummary, profiledServer, samplesOf } from './cpu-profile.mjs';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');
const root = resolve(process.argv[2] ?? here);
const SECONDS = Number(process.argv[3] ?? 8);
const CONNECTIONS = 50;

const server = await profiledServer({
  root,
  name: 'create-profile',
  env: { NODE_ENV: 'production', SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1/32' },
});
const body = JSON.stringify({
  scheduled_for: new Date(Date.now() + 3_600_000).toISOString(),
  request: { url: 'http://127.0.0.1:9/hook', method: 'POST', body: { hello: 'world' } },
});

let creates = 0;
/** Creates from CONNECTIONS loops for `ms`. */
async function load(ms) {
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const res = await fetch(`${server.base}/v1/actions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 201) throw new Error(`a create answered ${res.status}`);
        creates += 1;
      }
    }),
  );
}
await load(2_000);
const warm = creates;
// V8's profile counts microseconds of the machine's monotonic clock, which process.hrtime reads in every process.
const microseconds = () => Number(process.hrtime.bigint() / 1000n);
const from = microseconds();
await load(SECONDS * 1000);
const to = microseconds();
const windowMs = (to - from) / 1000;
const measured = creates - warm;
const samples = samplesOf(await server.stop());
console.log(
  `${root}: ${measured} creates in ${Math.round(windowMs)} ms (${Math.round(measured / (windowMs / 1000))}/s)`,
);
console.log(busySummary(samples, { from, to, units: measured, unit: 'create' }));
process.exit(0);
