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
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServe } from './serve.mjs';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');
const root = resolve(process.argv[2] ?? here);
const N = Number(process.argv[3] ?? 10_000);
const server = await import(pathToFileURL(join(here, 'server', 'dist', 'index.js')).href);
const database = `delivery_profile_${randomBytes(4).toString('hex')}`;
const embedded = await server.ensureEmbeddedPostgres({
  dataDir: join(here, 'test', '.tmp', 'pg-data'),
  database,
});
const dataDir = mkdtempSync(join(tmpdir(), 'sched-delivery-profile-'));
const profiles = join(dataDir, 'profiles');

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

const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL: embedded.url,
  SCHED_DATA_DIR: dataDir,
  SCHED_RATE_LIMIT_FACTOR: '100000',
  // The one a build knows: loopback allowed (newer builds), or every private destination (older ones).
  SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1/32',
  SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true',
};
const bin = join(root, 'cli', 'dist', 'bin.js');
const { child, base } = await startServe({
  root,
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`],
  env,
});
const account = JSON.parse(
  execFileSync(
    process.execPath,
    [
      bin,
      'accounts',
      'create',
      '--name',
      'profile',
      '--plan',
      'business',
      '--rate-limit-factor',
      '100000',
      '--json',
    ],
    { env },
  ).toString(),
);

/** `count` actions due at one moment `leadMs` ahead, created in batches; resolves once all have arrived. */
async function burst(count, leadMs) {
  const due = Date.now() + leadMs;
  const body = { scheduled_for: new Date(due).toISOString(), request: { url: `${rx}/hook`, body: { due } } };
  for (let i = 0; i < count; i += 1000) {
    const res = await fetch(`${base}/v1/actions/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json' },
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
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));

// The server's profile: the largest file (the CLI's `accounts create` writes a small one).
const file = readdirSync(profiles)
  .map((f) => join(profiles, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
const profile = JSON.parse(readFileSync(file, 'utf8'));
rmSync(dataDir, { recursive: true, force: true });
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
let t = profile.startTime;
const times = profile.timeDeltas.map((d) => {
  t += d;
  return t;
});
const inUndici = (id) => {
  for (let n = byId.get(id); n; n = byId.get(parent.get(n.id)))
    if (n.callFrame.url.includes('undici')) return true;
  return false;
};
// The burst's sending: the last run of samples in undici with no gap over 1.5 s (the warm-up is the first).
const marks = profile.samples.flatMap((id, i) => (inUndici(id) ? [times[i]] : []));
let from = marks[0];
let to = marks[0];
for (const m of marks) {
  if (m - to > 1_500_000) from = m;
  to = m;
}
const short = (url) =>
  url
    .replace(/^.*\/(server|contract|sdk|cli)\/dist\//, '$1/')
    .replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'npm:');
const byPlace = new Map();
const byFunction = new Map();
let busy = 0;
profile.samples.forEach((id, i) => {
  if (times[i] < from || times[i] > to) return;
  const frame = byId.get(id).callFrame;
  if (frame.functionName === '(idle)') return;
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  busy += ms;
  const url = short(frame.url);
  const place = url.startsWith('npm:')
    ? url
        .split('/')
        .slice(0, url.startsWith('npm:@') ? 2 : 1)
        .join('/')
    : url || frame.functionName || '(native)';
  byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
  const fn = `${frame.functionName || '(anonymous)'} ${url}`.trim();
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
});
const perDelivery = (ms) => `${((ms / N) * 1000).toFixed(1).padStart(7)} µs`;
const top = (m, k) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([name, ms]) => `${perDelivery(ms)}  ${name}`)
    .join('\n');
console.log(`${root}: ${N} deliveries, the sending ${((to - from) / 1000).toFixed(0)} ms long`);
console.log(`busy ${perDelivery(busy)} a delivery`);
console.log(`--- by package or file\n${top(byPlace, 25)}`);
console.log(`--- by function\n${top(byFunction, 25)}`);
process.exit(0);
