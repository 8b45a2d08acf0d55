import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/server.js';

/*
 * What @sched/sdk adds to a minified app bundle (`node bench/sdk-weight.mjs`, this build's sdk/dist): a tiny app of
 * `createClient`, `actions.create` and `verifyWebhook` against the same app without the SDK. The SDK sends requests
 * from a generated route table; the contract's zod schemas (about 270 KiB before) must not come back into it.
 */

const run = promisify(execFile);

/** After-figures (sdk/README.md, "Weight"): 29.5 KiB raw, 9.6 KiB gzip; the budget leaves about a third more. */
const BUDGET = { raw: 40 * 1024, gzip: 13 * 1024 };

interface Size {
  raw: number;
  gzip: number;
}

describe('the SDK in a bundled app', { timeout: 120_000 }, () => {
  it('adds no more than its byte budget, browser and Node, and no zod schema', async () => {
    const { stdout } = await run(process.execPath, [join(repoRoot, 'bench', 'sdk-weight.mjs'), '--json'], {
      cwd: repoRoot,
    });
    const result = JSON.parse(stdout) as Record<'browser' | 'node', { sdk: Size; app: Size; empty: Size }>;
    for (const platform of ['browser', 'node'] as const) {
      const { sdk, app, empty } = result[platform];
      expect(app.raw).toBeGreaterThan(empty.raw);
      expect(sdk.raw, `${platform} raw bytes`).toBeLessThanOrEqual(BUDGET.raw);
      expect(sdk.gzip, `${platform} gzip bytes`).toBeLessThanOrEqual(BUDGET.gzip);
      // The verifier's HMAC is in, so the figure measures a working SDK, not an emptied one.
      expect(sdk.raw).toBeGreaterThan(4 * 1024);
      // zod names its classes with string literals that survive minifying: none of the schemas is in.
      const out = join(repoRoot, 'bench', '.tmp', 'sdk-weight', `sdk-${platform}`, 'out');
      const code = readdirSync(out)
        .map((f) => readFileSync(join(out, f), 'utf8'))
        .join('\n');
      expect(code).toContain('Bearer ');
      expect(code).not.toMatch(/\$Zod(Object|Type|String)/);
    }
  });

  it('the route table the client sends from matches the contract', async () => {
    const check = await run(process.execPath, [
      join(repoRoot, 'sdk', 'scripts', 'routes.mjs'),
      '--check',
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });
});
