#!/usr/bin/env node
// @ts-check
/**
 * The walk, counted: which files of server/src and contract/src run for one webhook action with a `callback_url`,
 * from `POST /v1/actions` to its callback (docs/architecture.md, "The walk, counted").
 *
 * How it counts: the built server (`pnpm build` first) runs in this process, both roles, on a fresh database of the
 * test's embedded PostgreSQL (test/.tmp/pg-data), with V8's precise coverage (call counts per function) on. After one
 * warm-up walk (first-use caches, lazy imports), it takes three idle windows and the measured walk, each exactly
 * WINDOW_MS long, resetting the counters between them. The walk: the create on the default business account to the
 * loopback receiver (a host the threshold does not count, so the create is the one-statement path), due in 1 s,
 * delivered with a 2xx, and its `action.executed` callback received. A function belongs to the walk when it ran more
 * often in the walk's window than in any idle window (the scans, the sealer and pg-boss's polls run in both); a file
 * counts when one of its functions does. Files with only types never run and so never count.
 *
 *   node scripts/walk.mjs            the count and the files, by folder
 *   node scripts/walk.mjs --json     the same as JSON, with the functions that ran in each file
 *   node scripts/walk.mjs --functions  one line a file, with those functions
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const WINDOW_MS = 2_500;
const IDLE_WINDOWS = 3;

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** @returns {Promise<Map<string, Map<string, number>>>} per source file, per function (name and offset), its calls */
async function takeCoverage() {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Map();
  for (const script of result) {
    const file = sourceOf(script.url);
    if (!file) continue;
    const functions = files.get(file) ?? new Map();
    for (const [i, fn] of script.functions.entries()) {
      const count = fn.ranges[0]?.count ?? 0;
      // The first function is the module's own code (run when it is loaded); others without a name are arrows.
      const name = fn.functionName || (i === 0 ? '(module)' : '(anonymous)');
      if (count > 0) functions.set(`${name}@${fn.ranges[0].startOffset}`, count);
    }
    files.set(file, functions);
  }
  return files;
}

/** The source file a built module comes from (server/dist -> server/src, contract/dist -> contract/src). */
function sourceOf(url) {
  if (!url.startsWith('file:')) return null;
  const rel = relative(root, fileURLToPath(url));
  const m = /^(server|contract)\/dist\/(.+)\.js$/.exec(rel);
  if (!m || m[2].startsWith('console/')) return null;
  for (const ext of ['.ts', '.tsx']) {
    const src = `${m[1]}/src/${m[2]}${ext}`;
    if (existsSync(join(root, src))) return src;
  }
  return null;
}

const requireServer = createRequire(join(root, 'server', 'package.json'));
/** @type {typeof import('pg')} */
const pg = requireServer('pg');
/** @type {typeof import('../server/dist/index.js')} */
const server = await import(pathToFileURL(join(root, 'server', 'dist', 'index.js')).href);

const database = `walk_${process.pid}_${randomBytes(4).toString('hex')}`;
const embedded = await server.ensureEmbeddedPostgres({
  dataDir: join(root, 'test', '.tmp', 'pg-data'),
  database,
});
const dataDir = mkdtempSync(join(tmpdir(), 'sched-walk-'));

/** @type {Map<string, (body: unknown) => void>} */
const waiting = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    waiting.get(req.url ?? '')?.(body ? JSON.parse(body) : null);
  });
});
await new Promise((ok) => receiver.listen(0, '127.0.0.1', () => ok(undefined)));
const address = receiver.address();
const rx = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const config = server.loadConfig({
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: embedded.url,
  SCHED_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true',
});
// What the server prints (the default account's announcement) goes to stderr: stdout is the count.
const print = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const service = await server.startService(config, 'all');
const apiKey = /SCHED_API_KEY=(\S+)/.exec(readFileSync(join(dataDir, 'credentials'), 'utf8'))?.[1];

/** One walk: the create, then the callback's arrival (and a moment for its outcome to be recorded). */
async function walk(n) {
  const path = `/callback-${n}`;
  const called = new Promise((ok) => waiting.set(path, ok));
  const res = await fetch(`${service.url}/v1/actions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `walk ${n}`,
      schedule: { wait: '1s' },
      request: { url: `${rx}/hook-${n}` },
      callback_url: `${rx}${path}`,
    }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  const callback = /** @type {{ event?: string }} */ (await called);
  if (callback?.event !== 'action.executed')
    throw new Error(`unexpected callback ${JSON.stringify(callback)}`);
}

/** Runs `fn` in a window of exactly WINDOW_MS with fresh counters; answers the window's coverage. */
async function window(fn) {
  await takeCoverage();
  const start = Date.now();
  await fn();
  const left = WINDOW_MS - (Date.now() - start);
  if (left < 0) throw new Error(`the walk took longer than the ${WINDOW_MS} ms window`);
  await new Promise((ok) => setTimeout(ok, left));
  return takeCoverage();
}

let files;
try {
  await walk(0);
  const idle = [];
  for (let i = 0; i < IDLE_WINDOWS; i += 1) idle.push(await window(async () => {}));
  const walked = await window(() => walk(1));
  files = [...walked]
    .map(([file, functions]) => ({
      file,
      functions: [...functions]
        .filter(([fn, count]) => idle.every((w) => count > (w.get(file)?.get(fn) ?? 0)))
        .map(([fn]) => fn.replace(/@\d+$/, '')),
    }))
    .filter((f) => f.functions.length > 0)
    .sort((a, b) => a.file.localeCompare(b.file));
} finally {
  await service.stop();
  await new Promise((ok) => receiver.close(() => ok(undefined)));
  const adminUrl = new URL(embedded.adminUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`);
  await admin.end();
  await embedded.release();
  rmSync(dataDir, { recursive: true, force: true });
  session.disconnect();
}

if (process.argv.includes('--json')) {
  print(`${JSON.stringify({ count: files.length, files }, null, 2)}\n`);
} else if (process.argv.includes('--functions')) {
  for (const f of files) print(`${f.file}: ${f.functions.join(', ')}\n`);
} else {
  const byFolder = new Map();
  for (const { file: f } of files) {
    const folder = f
      .replace(/^(server\/src\/[^/]+|contract\/src)\/.*$/, '$1')
      .replace(/^server\/src\/[^/]+\.tsx?$/, 'server/src');
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), f]);
  }
  print(`${files.length} files run for one webhook action, POST /v1/actions to its callback\n`);
  for (const [folder, list] of byFolder) print(`\n${folder} (${list.length})\n  ${list.join('\n  ')}\n`);
}
