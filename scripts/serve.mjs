// @ts-check
/**
 * What the measuring scripts (gc-pauses.mjs, cpu-profile.mjs) share: `sched serve` of a build started as a
 * child process with the given Node flags and environment, answered once its `/healthz` does.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts `<root>/cli/dist/bin.js serve` on 127.0.0.1 at a random port; the child is killed when this process exits.
 * @param {{ root: string, nodeArgs?: string[], env: NodeJS.ProcessEnv, stdout?: 'ignore' | number }} o
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, base: string }>}
 */
export async function startServe({ root, nodeArgs = [], env, stdout = 'ignore' }) {
  const port = 20_000 + Math.floor(Math.random() * 10_000);
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'cli', 'dist', 'bin.js'), 'serve'], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', stdout, 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i += 1) {
    const up = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, base };
    if (i > 150) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}
