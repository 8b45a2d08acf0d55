#!/usr/bin/env node
// The two commands on a fresh machine: `npm start` and `npm test` (and `npm run sched -- ...`).
// Runs on any Node >= 18 with plain npm. When the machine's Node is older than the project needs, the pinned
// Node and pnpm are installed from the npm registry into .tools/ (git-ignored); then dependencies are installed
// from the lockfile and the workspace is built, each step only when its inputs changed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const NODE_VERSION = '24.21.0';
const PNPM_VERSION = '10.34.9';
const MIN_NODE = [22, 12];
const tools = join(root, '.tools');
const toolsBin = join(tools, 'node_modules', '.bin');
const [command = 'start', ...args] = process.argv.slice(2);
const quiet = command === 'sched';

function log(message) {
  if (!quiet) process.stderr.write(`[sched] ${message}\n`);
}

function run(cmd, cmdArgs, opts = {}) {
  const result = spawnSync(cmd, cmdArgs, {
    cwd: root,
    stdio: opts.capture ? 'pipe' : 'inherit',
    env: opts.env ?? process.env,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    if (opts.capture) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    process.stderr.write(`[sched] ${[cmd, ...cmdArgs].join(' ')} failed (exit ${result.status})\n`);
    process.exit(result.status ?? 1);
  }
  return result;
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

function hashOf(paths) {
  const h = createHash('sha256');
  for (const p of paths) h.update(p).update(existsSync(join(root, p)) ? readFileSync(join(root, p)) : '');
  return h.digest('hex');
}

function stampMatches(name, value) {
  const file = join(root, 'node_modules', `.sched-${name}`);
  return existsSync(file) && readFileSync(file, 'utf8') === value;
}

function writeStamp(name, value) {
  writeFileSync(join(root, 'node_modules', `.sched-${name}`), value);
}

// 1. Toolchain: the pinned pnpm always; Node too when the machine's is older than MIN_NODE.
const useOwnNode = !nodeIsRecentEnough(process.version);
const wanted = `node@${NODE_VERSION} pnpm@${PNPM_VERSION}`;
const toolsStamp = join(tools, '.installed');
if (!existsSync(toolsStamp) || readFileSync(toolsStamp, 'utf8') !== wanted) {
  log(`installing ${useOwnNode ? `Node ${NODE_VERSION} and ` : ''}pnpm ${PNPM_VERSION} into .tools/`);
  mkdirSync(tools, { recursive: true });
  writeFileSync(join(tools, 'package.json'), '{ "private": true }\n');
  run(
    'npm',
    [
      'install',
      '--prefix',
      tools,
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node@${NODE_VERSION}`,
      `pnpm@${PNPM_VERSION}`,
    ],
    {
      capture: quiet,
    },
  );
  writeFileSync(toolsStamp, wanted);
}
const env = {
  ...process.env,
  PATH: `${toolsBin}${delimiter}${process.env.PATH ?? ''}`,
  npm_config_update_notifier: 'false',
};
if (!useOwnNode) env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH}`;
const node = useOwnNode ? join(toolsBin, 'node') : process.execPath;
const pnpm = join(toolsBin, 'pnpm');

// 2. Dependencies from the lockfile, when it or a manifest changed.
const manifests = [
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'package.json',
  'contract/package.json',
  'server/package.json',
  'sdk/package.json',
  'cli/package.json',
  'test/package.json',
];
const depsHash = hashOf(manifests);
if (!existsSync(join(root, 'node_modules')) || !stampMatches('deps', depsHash)) {
  log('installing dependencies (pnpm install --frozen-lockfile)');
  run(
    pnpm,
    ['install', '--frozen-lockfile', '--reporter=append-only', '--config.confirmModulesPurge=false'],
    { env, capture: quiet },
  );
  writeStamp('deps', depsHash);
}

// 3. Build (tsc -b is incremental: nothing to do when nothing changed). SCHED_SKIP_BUILD=1 reuses the built tree as
// it is (a test that starts the launcher while other tests serve the console from it).
if (process.env.SCHED_SKIP_BUILD !== '1') run(pnpm, ['run', '--silent', 'build'], { env, capture: true });

// 4. The command itself, as a child that receives the signals this process gets: a process manager (or npm, or a
// terminal's Ctrl-C) that signals only this pid must stop the server and its embedded database, not orphan them.
const cli = join(root, 'cli', 'dist', 'bin.js');
const commands = {
  start: () => [node, [cli, 'serve', ...args], root],
  sched: () => [node, [cli, ...args], process.env.INIT_CWD ?? root],
  test: () => [pnpm, ['run', '--silent', 'test:all', ...args], root],
};
if (!commands[command]) {
  process.stderr.write(`unknown command ${command}: use start, test or sched\n`);
  process.exit(2);
}
const [bin, binArgs, cwd] = commands[command]();
// `start` runs the server in its own process group, so a terminal's Ctrl-C reaches it once, through here, and not a
// second time from npm's forwarding (a second signal tells `serve` to stop without draining). The other commands
// stay in the terminal's group (they may read it) and get Ctrl-C from it directly.
const own = command === 'start';
// It is told this process's pid: when this process dies without passing a signal on (SIGKILL from a supervisor,
// `timeout -s KILL`, a cancelled CI job), `serve` finds itself re-parented and stops as on SIGTERM instead of living
// on, orphaned, with its port and its embedded PostgreSQL. (A pid, not an IPC channel: `serve` re-executes itself
// with its heap flags, which closes an inherited channel.)
const childEnv = own ? { ...env, SCHED_LAUNCHER_PID: String(process.pid) } : env;
const child = spawn(bin, binArgs, { cwd, stdio: 'inherit', env: childEnv, detached: own });
let lastForward = 0;
for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) {
  process.on(signal, () => {
    if (signal === 'SIGINT' && !own) return;
    const now = Date.now();
    if (now - lastForward < 1000) return; // the same stop, delivered by the terminal and by npm
    lastForward = now;
    child.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
  });
}
// npm runs this through `sh -c`, and a SIGTERM to npm stops that shell without passing it on: this process is then
// re-parented, which means the same thing.
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  process.emit('SIGTERM', 'SIGTERM');
}, 500);
orphaned.unref();
const signalNumber = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
child.on('exit', (code, signal) => process.exit(code ?? 128 + (signalNumber[signal] ?? 1)));
