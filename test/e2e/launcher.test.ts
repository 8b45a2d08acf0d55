import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, repoRoot } from '../support/server.js';
import { eventually, pastInstant } from '../support/wait.js';

/** How long the server may drain after its launcher is gone (SCHED_SHUTDOWN_TIMEOUT_MS below). */
const DRAIN_MS = 5_000;

/**
 * `npm start` as a supervisor, `timeout -s KILL` or a cancelled CI job ends it: the launcher (scripts/bootstrap.mjs)
 * runs in its own process group and `sched serve` in another, so a SIGKILL of the launcher's group reaches the
 * launcher only. The server must notice, stop as on SIGTERM and release its embedded PostgreSQL; the next start on
 * the same data directory then delivers what fell due meanwhile. The built tree is reused (SCHED_SKIP_BUILD=1).
 */
describe('npm start: a server never outlives its launcher', { timeout: 180_000 }, () => {
  let rx: Receiver;
  let dataDir: string;
  /** Where the embedded cluster lives: in the data directory, or (as root, when unreachable) under /var/lib. */
  let clusters: string[];
  const launchers: ChildProcess[] = [];

  beforeAll(async () => {
    rx = await startReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'sched-launcher-'));
    const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
    clusters = [join(dataDir, 'pg'), join('/var/lib/sched-embedded', key, 'pg')];
  });

  afterAll(async () => {
    for (const launcher of launchers) {
      if (launcher.exitCode === null && launcher.signalCode === null) process.kill(-launcher.pid!, 'SIGTERM');
    }
    if (dataDir) await eventually(async () => processesOf().length === 0, 30_000).catch(() => {});
    await rx?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    const shared = clusters?.[1] ? join(clusters[1], '..') : null;
    if (shared && existsSync(shared)) rmSync(shared, { recursive: true, force: true });
  });

  /** Starts the launcher in a process group of its own; resolves once the server says where it listens. */
  async function launch(): Promise<{ launcher: ChildProcess; url: string; output: () => string }> {
    const launcher = spawn(process.execPath, [join(repoRoot, 'scripts', 'bootstrap.mjs'), 'start'], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SCHED_SKIP_BUILD: '1',
        SCHED_DATA_DIR: dataDir,
        DATABASE_URL: '',
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true',
        SCHED_SHUTDOWN_TIMEOUT_MS: String(DRAIN_MS),
      },
    });
    launchers.push(launcher);
    let out = '';
    launcher.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    launcher.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const url = await eventually(async () => {
      if (launcher.exitCode !== null) throw new Error(`the launcher exited early:\n${out}`);
      return /listening on (http:\/\/\S+)/.exec(out)?.[1];
    }, 120_000);
    return { launcher, url, output: () => out };
  }

  /** Live processes of this data directory: sched's (by their environment) and PostgreSQL's (by its cluster). */
  function processesOf(): { pid: number; what: string }[] {
    const procs = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map((name) => {
        const pid = Number(name);
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          let environ = '';
          try {
            environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
          } catch {}
          return { pid, state: state!, ppid: Number(ppid), cmdline, environ };
        } catch {
          return null; // gone while read
        }
      })
      .filter((p) => p !== null && p.state !== 'Z');
    const postmasters = new Set(
      procs
        .filter((p) => clusters.some((c) => p!.cmdline[p!.cmdline.indexOf('-D') + 1] === c))
        .map((p) => p!.pid),
    );
    return procs
      .filter(
        (p) =>
          postmasters.has(p!.pid) ||
          postmasters.has(p!.ppid) ||
          p!.environ.split('\0').includes(`SCHED_DATA_DIR=${dataDir}`),
      )
      .map((p) => ({ pid: p!.pid, what: p!.cmdline.join(' ').trim() }));
  }

  it('SIGKILL of the launcher group stops the server and its PostgreSQL; the next start delivers what was due', async () => {
    const first = await launch();
    const key = /^SCHED_API_KEY=(.+)$/m.exec(readFileSync(join(dataDir, 'credentials'), 'utf8'))?.[1] ?? '';
    expect(key).toMatch(/^sk_sched_/);
    const running = processesOf();
    // The launcher, the server and the cluster's postmaster at least.
    expect(running.some((p) => p.what.includes('bootstrap.mjs start'))).toBe(true);
    expect(running.some((p) => p.what.includes('bin.js serve'))).toBe(true);
    expect(running.some((p) => p.what.includes(' -D '))).toBe(true);

    const created = await api({ url: first.url }, key, 'POST', '/v1/actions', {
      name: 'due while nobody runs',
      schedule: { wait: '6s' },
      request: { url: `${rx.url}/due` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const due = Date.parse(created.body.data.scheduled_for);

    // The launcher's group only: the server runs in a group of its own and gets no signal at all.
    const killedAt = Date.now();
    process.kill(-first.launcher.pid!, 'SIGKILL');
    await eventually(async () => processesOf().length === 0, DRAIN_MS + 5_000, 50).catch(() => {
      throw new Error(
        `still running ${Date.now() - killedAt} ms after the launcher was killed:\n${processesOf()
          .map((p) => `${p.pid} ${p.what}`)
          .join('\n')}\n${first.output()}`,
      );
    });
    const stoppedIn = Date.now() - killedAt;
    expect(stoppedIn).toBeLessThan(DRAIN_MS + 5_000);
    expect(first.output()).toContain('the launcher is gone: stopping as on SIGTERM');
    // Stopped before the action fell due: nothing has delivered it.
    expect(Date.now()).toBeLessThan(due);
    expect(rx.to('/due')).toHaveLength(0);

    // Nobody runs while it falls due; then a fresh start on the same data directory delivers it.
    await pastInstant(due, 500);
    expect(rx.to('/due')).toHaveLength(0);
    const second = await launch();
    await rx.waitFor('/due', 1, 30_000);
    const action = await eventually(async () => {
      const a = (await api({ url: second.url }, key, 'GET', `/v1/actions/${created.body.data.id}`)).body.data;
      return a.status === 'executed' ? a : null;
    }, 30_000);
    expect(action.delivery_attempts).toHaveLength(1);

    // A plain SIGTERM to the launcher still stops both, draining.
    process.kill(-second.launcher.pid!, 'SIGTERM');
    await eventually(async () => processesOf().length === 0, DRAIN_MS + 10_000, 100);
  });
});
