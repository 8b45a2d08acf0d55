import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ResponsePageModel,
  renderErrorPage,
  renderResponsePage,
  renderResultPage,
} from '../../server/src/http/pages/render.js';
import { PAGE_CSP, PAGE_HEADERS } from '../../server/src/http/pages/document.js';
import { parseDuration } from '../../server/src/domain/schedule/duration.js';
import { parseAnswer } from '../../server/src/http/answer.js';
import { launchBrowser, watchCsp } from '../support/browser.js';

// The rendered pages in a real browser: a tiny loopback server stands in for the `/r/<token>` routes, so
// this checks the HTML, the CSP and the form round trip, not the persistence behind them.

const repoRoot = resolve(import.meta.dirname, '..', '..');
// Screenshots go to test/.tmp; `UPDATE_SCREENSHOTS=1` writes the ones docs/approvals.md shows instead.
const imagesDir = process.env.UPDATE_SCREENSHOTS
  ? join(repoRoot, 'docs', 'images')
  : join(repoRoot, 'test', '.tmp', 'images');
const NOW = new Date('2026-11-21T09:00:00Z');
const PHONE = { width: 360, height: 740 };

const demo: ResponsePageModel = {
  title: 'Deploy billing-service v2.4 to production',
  message:
    'The release passed all staging checks on Friday.\n\n' +
    'Changes:\n• New layout for invoice PDFs\n• Fix for rounding of EUR totals\n\n' +
    'Rollback plan: redeploy v2.3 (about 5 minutes).',
  recipientName: 'Ada Lovelace',
  formAction: '/r/demo',
  buttons: { confirm: 'Approve deploy', decline: 'Reject' },
  snooze: {
    allowed: true,
    remaining: 3,
    choices: [
      { value: '15m', label: '15 minutes' },
      { value: '1h', label: '1 hour' },
      { value: '4h', label: '4 hours' },
      { value: '1d', label: '1 day' },
    ],
  },
  attachments: [
    {
      name: 'release-notes-v2.4.pdf',
      url: '/r/demo/attachments/0',
      size: 248_320,
      contentType: 'application/pdf',
    },
    { name: 'staging-report.csv', url: '/r/demo/attachments/1', size: 18_432, contentType: 'text/csv' },
  ],
  expiresAt: new Date(NOW.getTime() + 7 * 86_400_000),
  now: NOW,
};

interface PageServer {
  url: string;
  posts: string[];
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(html);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function startPageServer(): Promise<PageServer> {
  const posts: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/r/demo' && req.method === 'GET') {
        const suggested = url.searchParams.get('decision');
        send(
          res,
          200,
          renderResponsePage({
            ...demo,
            ...(suggested === 'confirm' || suggested === 'decline' ? { suggestedDecision: suggested } : {}),
          }),
        );
      } else if (url.pathname === '/r/demo' && req.method === 'POST') {
        const body = await readBody(req);
        posts.push(body);
        const parsed = parseAnswer(Object.fromEntries(new URLSearchParams(body)));
        if (!parsed.ok) {
          const message = Object.entries(parsed.errors)
            .map(([field, messages]) => `${field}: ${messages.join(', ')}`)
            .join('; ');
          send(res, 422, renderErrorPage({ status: 422, message, backUrl: '/r/demo' }));
          return;
        }
        const outcome = ({ confirm: 'confirmed', decline: 'declined', snooze: 'snoozed' } as const)[
          parsed.decision
        ];
        const snoozedUntil = new Date(NOW.getTime() + (parseDuration(parsed.snoozeFor ?? '1h') ?? 0));
        send(
          res,
          200,
          renderResultPage({
            title: demo.title,
            outcome,
            now: NOW,
            ...(outcome === 'snoozed' ? { snoozedUntil } : {}),
          }),
        );
      } else if (url.pathname === '/bad') {
        // A page whose stylesheet the CSP does not allow: proves the violation watcher is not blind.
        send(
          res,
          200,
          '<!doctype html><html lang="en"><head><style>body{color:red}</style></head><body>x</body></html>',
        );
      } else {
        send(res, 404, '<!doctype html><title>Not found</title>');
      }
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

describe('approval response pages in chromium', () => {
  let browser: Browser | null = null;
  let server: PageServer;

  beforeAll(async () => {
    mkdirSync(imagesDir, { recursive: true });
    server = await startPageServer();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function phonePage(): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
    const context = await browser!.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: 'light',
      locale: 'en-US',
    });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    return { context, page, requests };
  }

  it('shows the request on a phone without any CSP violation; a comment and confirm record the answer', async (ctx) => {
    if (!browser) return ctx.skip();
    const { context, page, requests } = await phonePage();
    const violations = await watchCsp(page);

    const response = await page.goto(`${server.url}/r/demo`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(PAGE_CSP);
    expect(await page.locator('h1').textContent()).toBe(demo.title);
    expect(await page.title()).toBe(`${demo.title} · Approval request`);

    // The inline stylesheet applied (its hash matched), the layout fits 360 px, the buttons are easy to tap.
    const confirm = page.getByRole('button', { name: 'Approve deploy' });
    const decline = page.getByRole('button', { name: 'Reject' });
    expect(await confirm.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor)).toBe(
      'rgb(22, 101, 52)',
    );
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
    for (const button of [confirm, decline, page.getByRole('button', { name: 'Snooze' })]) {
      const box = await button.boundingBox();
      expect(box!.height).toBeGreaterThanOrEqual(44);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
    expect(await page.getByRole('link', { name: 'release-notes-v2.4.pdf' }).getAttribute('href')).toBe(
      '/r/demo/attachments/0',
    );
    expect(await page.getByText('3 snoozes left.').isVisible()).toBe(true);
    expect(await page.getByText('2026-11-28 09:00 UTC').isVisible()).toBe(true);

    // The browser enforces the comment limit the server checks again.
    const comment = page.getByLabel('Comment');
    expect(await comment.getAttribute('maxlength')).toBe('500');
    await comment.fill('Checked the staging report: the EUR totals now match. Ship it.');
    await comment.blur();
    await page.screenshot({ path: join(imagesDir, 'approval-page.png'), fullPage: true });

    await confirm.click();
    // The click is a plain form post: the result page replaces the document.
    const status = page.getByRole('status');
    await status.waitFor();
    const result = await status.textContent();
    expect(result).toContain('Confirmed');
    expect(result).toContain(`Your answer to “${demo.title}” was recorded.`);
    // The snooze select is part of the form, so it is posted too; the parser ignores it unless snoozing.
    expect(server.posts.at(-1)).toBe(
      'comment=Checked+the+staging+report%3A+the+EUR+totals+now+match.+Ship+it.&decision=confirm&snooze_for=15m',
    );
    await page.screenshot({ path: join(imagesDir, 'approval-confirmed.png'), fullPage: true });

    expect(violations).toEqual([]);
    expect(requests.every((url) => url.startsWith(server.url))).toBe(true);
    await context.close();
  });

  it('focuses the button a link suggests, submits nothing by itself, and snoozes with the chosen period', async (ctx) => {
    if (!browser) return ctx.skip();
    const { context, page } = await phonePage();
    const violations = await watchCsp(page);
    const postsBefore = server.posts.length;

    await page.goto(`${server.url}/r/demo?decision=decline`);
    expect(await page.evaluate("document.activeElement?.getAttribute('value')")).toBe('decline');
    expect(await page.getByText('Almost done: press Reject below').isVisible()).toBe(true);
    expect(server.posts.length).toBe(postsBefore);

    await page.getByLabel('Remind me again in').selectOption('4h');
    await page.getByRole('button', { name: 'Snooze' }).click();
    await page.getByRole('status').waitFor();
    const result = await page.getByRole('status').textContent();
    expect(result).toContain('Snoozed');
    expect(result).toContain('2026-11-21 13:00 UTC (in 4 hours)');
    expect(server.posts.at(-1)).toBe('comment=&snooze_for=4h&decision=snooze');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('caps the comment at 500 characters in the browser', async (ctx) => {
    if (!browser) return ctx.skip();
    const { context, page } = await phonePage();
    await page.goto(`${server.url}/r/demo`);
    await page.getByLabel('Comment').focus();
    await page.keyboard.insertText('x'.repeat(520));
    expect(await page.getByLabel('Comment').inputValue()).toHaveLength(500);
    await context.close();
  });

  it('notices a CSP violation when there is one', async (ctx) => {
    if (!browser) return ctx.skip();
    const { context, page } = await phonePage();
    const violations = await watchCsp(page);
    await page.goto(`${server.url}/bad`);
    await expect.poll(() => violations.length).toBeGreaterThan(0);
    expect(violations.some((v) => v.text.includes('style-src'))).toBe(true);
    await context.close();
  });
});
