// @ts-check
/**
 * What the profiling scripts (delivery-profile.mjs, create-profile.mjs) share: `sched serve` of a build with V8's
 * `--cpu-prof` on a fresh database of the tests' embedded PostgreSQL, with an account of the business plan, and the
 * summary of its profile over a window: busy time per unit, by package or file, then by function.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServe } from './serve.mjs';

const here = resolve(fileURLToPath(import.meta.url), '..', '..');

/**
 * @typedef {{ nodes: { id: number, callFrame: { functionName: string, url: string }, children?: number[] }[],
 *   samples: number[], timeDeltas: number[], startTime: number }} CpuProfile
 */

/**
 * Starts the build at `root` (this checkout's unless given) profiled; `stop()` ends it and answers its profile.
 * @param {{ root: string, name: string, env: NodeJS.ProcessEnv }} o
 * @returns {Promise<{ base: string, apiKey: string, stop(): Promise<CpuProfile> }>}
 */
export async function profiledServer({ root, name, env: extra }) {
  const server = await import(pathToFileURL(join(here, 'server', 'dist', 'index.js')).href);
  const embedded = await server.ensureEmbeddedPostgres({
    dataDir: join(here, 'test', '.tmp', 'pg-data'),
    database: `${name.replaceAll('-', '_')}_${randomBytes(4).toString('hex')}`,
  });
  const dataDir = mkdtempSync(join(tmpdir(), `sched-${name}-`));
  const profiles = join(dataDir, 'profiles');
  const env = {
    ...process.env,
    DATABASE_URL: embedded.url,
    SCHED_DATA_DIR: dataDir,
    SCHED_RATE_LIMIT_FACTOR: '100000',
    ...extra,
  };
  const { child, base } = await startServe({
    root,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`],
    env,
  });
  const cli = join(root, 'cli', 'dist', 'bin.js');
  const account = JSON.parse(
    execFileSync(
      process.execPath,
      [
        cli,
        'accounts',
        'create',
        '--name',
        name,
        '--plan',
        'business',
        '--rate-limit-factor',
        '100000',
        '--json',
      ],
      { env },
    ).toString(),
  );
  return {
    base,
    apiKey: account.api_key,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      // The server's profile: the largest file (the CLI's `accounts create` writes a small one).
      const file = readdirSync(profiles)
        .map((f) => join(profiles, f))
        .sort((a, b) => statSync(b).size - statSync(a).size)[0];
      if (!file) throw new Error('the server wrote no profile');
      const profile = JSON.parse(readFileSync(file, 'utf8'));
      rmSync(dataDir, { recursive: true, force: true });
      return profile;
    },
  };
}

/**
 * A profile's samples with their times (microseconds, the profile's clock) and call frames.
 * @param {CpuProfile} profile
 */
export function samplesOf(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = profile.startTime;
  return profile.samples.map((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) throw new Error(`the profile has no node ${id}`);
    return {
      at: t,
      frame: node.callFrame,
      /** How long the sample stands for, in ms: until the next one. */
      ms: (profile.timeDeltas[i + 1] ?? 0) / 1000,
      /** Whether a frame on the sample's stack matches. */
      within: (/** @type {(url: string) => boolean} */ match) => {
        /** @type {CpuProfile['nodes'][number] | undefined} */
        let n = node;
        for (; n; n = byId.get(parent.get(n.id))) if (match(n.callFrame.url)) return true;
        return false;
      },
    };
  });
}

/** A script's or package's short name: `server/app/...`, `npm:undici`. */
const shortUrl = (/** @type {string} */ url) =>
  url
    .replace(/^.*\/(server|contract|sdk|cli)\/dist\//, '$1/')
    .replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, 'npm:');

/**
 * The busy time of the samples from `from` to `to` (the profile's clock), per unit of `units`, by package or file
 * and by function, as printed lines.
 * @param {ReturnType<typeof samplesOf>} samples
 * @param {{ from: number, to: number, units: number, unit: string, rows?: number }} o
 */
export function busySummary(samples, { from, to, units, unit, rows = 25 }) {
  const byPlace = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const s of samples) {
    if (s.at < from || s.at > to || s.frame.functionName === '(idle)') continue;
    busy += s.ms;
    const url = shortUrl(s.frame.url);
    const place = url.startsWith('npm:')
      ? url
          .split('/')
          .slice(0, url.startsWith('npm:@') ? 2 : 1)
          .join('/')
      : url || s.frame.functionName || '(native)';
    byPlace.set(place, (byPlace.get(place) ?? 0) + s.ms);
    const fn = `${s.frame.functionName || '(anonymous)'} ${url}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + s.ms);
  }
  const perUnit = (/** @type {number} */ ms) => `${((ms / units) * 1000).toFixed(1).padStart(7)} µs`;
  const top = (/** @type {Map<string, number>} */ m) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([name, ms]) => `${perUnit(ms)}  ${name}`)
      .join('\n');
  return [
    `busy ${perUnit(busy)} a ${unit}`,
    `--- by package or file\n${top(byPlace)}`,
    `--- by function\n${top(byFunction)}`,
  ].join('\n');
}
