import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { type CspViolation, watchCsp } from './browser.js';
import { repoRoot } from './server.js';

// The operator console's browser tests share these: pages that record CSP violations, sign-in, and the check each
// panel passes (axe-core, then a screenshot). `UPDATE_SCREENSHOTS=1` writes the screenshots docs/console.md shows.

const imagesDir = process.env.UPDATE_SCREENSHOTS
  ? join(repoRoot, 'docs', 'images')
  : join(repoRoot, 'test', '.tmp', 'images');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** axe-core run in the page (through DevTools, which the page's CSP does not govern): serious and critical only. */
async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const all = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) })))`)) as AxeViolation[];
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export interface ConsolePages {
  /** Every page's list of CSP violations, filled as pages load. */
  csp: CspViolation[][];
  /** A page in a context of its own (its own cookies), watched for CSP violations. */
  open(): Promise<Page>;
  /** Signs in at `${url}/console` with a key and waits for the overview. */
  signIn(page: Page, url: string, key: string): Promise<void>;
  /** No serious or critical axe violation on the page as it is; then its screenshot `console-<name>.png`. */
  check(page: Page, name: string): Promise<void>;
  /** The same axe check without a screenshot, for views a test walks by the dozen. */
  accessible(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export function consolePages(browser: Browser): ConsolePages {
  const csp: CspViolation[][] = [];
  const contexts: BrowserContext[] = [];
  return {
    csp,
    async open() {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 860 },
        colorScheme: 'light',
      });
      contexts.push(context);
      const page = await context.newPage();
      csp.push(await watchCsp(page));
      return page;
    },
    async signIn(page, url, key) {
      await page.goto(`${url}/console`);
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    },
    async check(page, name) {
      expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
      mkdirSync(imagesDir, { recursive: true });
      await page.screenshot({ path: join(imagesDir, `console-${name}.png`), fullPage: true });
    },
    async accessible(page, name) {
      expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
    },
  };
}
