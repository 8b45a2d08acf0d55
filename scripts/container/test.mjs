#!/usr/bin/env node
// The container test (outside `npm test`: building the image takes minutes). Builds the image from this checkout
// with podman or docker, runs it with its data in a volume, schedules a webhook through the API with the key the
// container made at first start, sees it arrive at a receiver on loopback, checks the health check, the user and
// the stop signal, and stops it with SIGTERM.
//   node scripts/container/test.mjs          (CONTAINER_ENGINE=docker|podman; NODE_IMAGE to pick the base)
// Where the official node image cannot be pulled (a machine that reaches no container registry), the base is made
// locally from Debian's packages by scripts/container/local-base.sh, and the test says so.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const engine = process.env.CONTAINER_ENGINE ?? (which('podman') ? 'podman' : 'docker');
// Sandboxes that forbid raising rlimits (these machines) need runc and limits below the hard ones.
const engineFlags = engine === 'podman' && which('runc') ? ['--runtime', which('runc')] : [];
const limits =
  process.env.CONTAINER_ULIMITS === 'none'
    ? []
    : ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];
const image = 'localhost/sched:container-test';
let passed = 0;
let failed = 0;

function which(name) {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}
function ce(args, opts = {}) {
  return execFileSync(engine, [...engineFlags, ...args], {
    encoding: 'utf8',
    stdio: opts.stdio ?? 'pipe',
    cwd: root,
  });
}
function check(name, fn) {
  return Promise.resolve()
    .then(fn)
    .then(
      () => {
        passed++;
        console.log(`ok   ${name}`);
      },
      (err) => {
        failed++;
        console.log(`FAIL ${name}: ${err?.message ?? err}`);
      },
    );
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
async function until(what, fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// 1. The base: the official image, or a local stand-in when no registry is reachable.
let base = process.env.NODE_IMAGE ?? 'node:24-bookworm-slim';
if (
  !process.env.NODE_IMAGE &&
  spawnSync(engine, [...engineFlags, 'pull', '-q', base], { stdio: 'ignore', timeout: 120_000 }).status !== 0
) {
  base = 'localhost/sched-node:24-bookworm-slim';
  console.log(
    `note: ${engine} could not pull node:24-bookworm-slim; building on ${base} (Debian packages + Node from npm)`,
  );
  if (spawnSync(engine, ['image', 'exists', base]).status !== 0)
    execFileSync(join(root, 'scripts/container/local-base.sh'), [base], {
      stdio: 'inherit',
      env: { ...process.env, CONTAINER_ENGINE: engine },
    });
}

// 2. The image, built as a user would (the network for the npm registry only).
const started = Date.now();
ce(
  [
    'build',
    ...(engine === 'podman' ? ['--format', 'docker'] : []),
    '--network',
    'host',
    ...limits,
    '--build-arg',
    `NODE_IMAGE=${base}`,
    '-t',
    image,
    '.',
  ],
  { stdio: 'inherit' },
);
console.log(`built ${image} in ${Math.round((Date.now() - started) / 1000)} s`);

// 3. A receiver on loopback, and the container on the host's network with its data in a folder it owns.
const deliveries = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    deliveries.push({ url: req.url, headers: req.headers, body });
    res.writeHead(204).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;
const port = 18000 + Math.floor(Math.random() * 2000);
const data = mkdtempSync(join(tmpdir(), 'sched-container-'));
chownSync(data, 1000, 1000);
const name = `sched-container-test-${process.pid}`;
const base_url = `http://127.0.0.1:${port}`;
try {
  ce([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    ...limits,
    '-v',
    `${data}:/data`,
    // Development settings, for a destination on loopback; the image's default is production.
    '-e',
    `PORT=${port}`,
    '-e',
    'NODE_ENV=development',
    '-e',
    'SCHED_ALLOW_PRIVATE_DESTINATIONS=true',
    image,
  ]);

  await check('the container starts and answers /readyz (embedded PostgreSQL in the volume)', async () => {
    await until('/readyz', async () => (await fetch(`${base_url}/readyz`)).ok, 120_000);
  });
  await check(
    'it runs as a non-root user with SIGTERM as its stop signal and a health check on /readyz',
    async () => {
      const inspected = JSON.parse(ce(['inspect', image]))[0];
      const config = inspected.Config ?? inspected.config;
      assert(config.User === 'node', `user ${config.User}`);
      assert(config.StopSignal === 'SIGTERM', `stop signal ${config.StopSignal}`);
      const health = JSON.stringify(config.Healthcheck ?? inspected.Healthcheck ?? '');
      assert(health.includes('/readyz'), `health check ${health}`);
      if (engine === 'podman') ce(['healthcheck', 'run', name]);
    },
  );
  await check('a webhook scheduled through the API with the first-start key arrives', async () => {
    const key = /SCHED_API_KEY=(\S+)/.exec(readFileSync(join(data, 'credentials'), 'utf8'))?.[1];
    assert(key, 'no credentials file in the volume');
    const created = await fetch(`${base_url}/v1/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        schedule: { wait: '2s' },
        request: { url: receiverUrl, body: { hello: 'container' } },
      }),
    });
    assert(created.status === 201, `create answered ${created.status}: ${await created.text()}`);
    const delivery = await until('the delivery', async () => deliveries[0], 30_000);
    assert(JSON.parse(delivery.body).hello === 'container', `body ${delivery.body}`);
    assert(
      delivery.headers['webhook-id'] !== undefined || delivery.headers['x-sched-action-id'] !== undefined,
      'no sched headers',
    );
  });
  await check('SIGTERM stops it cleanly (exit code 0)', async () => {
    ce(['stop', '-t', '40', name]);
    const code = ce(['inspect', name, '--format', '{{.State.ExitCode}}']).trim();
    assert(code === '0', `exit code ${code}`);
  });
} finally {
  spawnSync(engine, [...engineFlags, 'logs', name], { stdio: failed ? 'inherit' : 'ignore' });
  spawnSync(engine, [...engineFlags, 'rm', '-f', name], { stdio: 'ignore' });
  receiver.close();
  rmSync(data, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
