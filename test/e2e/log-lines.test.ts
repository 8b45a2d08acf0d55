import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/server.js';

const loggerModule = pathToFileURL(join(repoRoot, 'server', 'dist', 'logger.js')).href;

/**
 * A process that logs `count` lines through the server's logger and then ends: `exit` calls process.exit (as
 * `sched serve` does once it has stopped), `drain` lets the event loop run dry. Answers its stdout (a pipe).
 */
function logAndEnd(count: number, end: 'exit' | 'drain'): Promise<string> {
  const script = `
    const { createLogger } = await import(${JSON.stringify(loggerModule)});
    const log = createLogger('info');
    for (let i = 0; i < ${count}; i++) log.info({ i, text: 'déjà vu ✓ 🙂' }, 'line');
    ${end === 'exit' ? 'process.exit(0);' : ''}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`exit ${code}`)),
    );
  });
}

// The log writer batches lines (persistence of a line is not waited for): a stop that ends the process must still
// write every line, whole and in order, multi-byte characters included.
describe('the log writer', () => {
  for (const end of ['exit', 'drain'] as const) {
    for (const count of [3, 2_000]) {
      it(`writes all of ${count} lines when the process ends by ${end}`, async () => {
        const out = await logAndEnd(count, end);
        const lines = out.split('\n').filter((l) => l !== '');
        expect(lines).toHaveLength(count);
        lines.forEach((line, i) => {
          const parsed = JSON.parse(line) as { i: number; text: string; msg: string };
          expect([parsed.i, parsed.text, parsed.msg]).toEqual([i, 'déjà vu ✓ 🙂', 'line']);
        });
      });
    }
  }
});

// A line made while an earlier write is still under way (a reader slower than the server) is written a moment after
// that write ends, not kept until the next line: on a quiet server that could be never.
describe('the log writer behind a slow reader', () => {
  it('writes a line made during a blocked write while the process goes on, quiet', async () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(loggerModule)});
      const log = createLogger('info');
      log.info({ text: 'x'.repeat(300_000) }, 'big');
      log.info('last');
      setTimeout(() => undefined, 20_000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // Nothing read for a second: the big line fills the pipe, and the writer's flush comes while it waits.
      child.stdout.pause();
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      await new Promise((r) => setTimeout(r, 1_000));
      child.stdout.resume();
      const deadline = Date.now() + 3_000;
      while (!out.includes('"msg":"last"') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('"msg":"big"');
      expect(out).toContain('"msg":"last"');
    } finally {
      child.kill();
    }
  });
});
