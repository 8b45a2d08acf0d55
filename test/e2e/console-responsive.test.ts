import { type Action, createClient, type SchedClient } from '@sched/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { statusOf } from '../support/wait.js';

// The console as an operator acts from it, in Debian's chromium against a real API server and worker: every panel
// at a phone's 390 px (navigation behind a menu button, no horizontal scroll, axe clean) and at 1440 px; a bulk
// cancel of exactly the rows selected, after its dry run; lists that refresh by themselves, mark replays both ways,
// and offer Retry when a read fails.

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

async function created(sched: SchedClient, body: Parameters<SchedClient['actions']['create']>[0]) {
  const made = await sched.actions.create(body);
  if (made.skipped) throw new Error('skipped');
  return made.action;
}

/** The view has drawn its content: a first-level heading, and no list still loading. */
async function settled(page: Page) {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await expect.poll(() => page.locator('.skeleton').count(), { timeout: 15_000 }).toBe(0);
}

const overflow = (page: Page) =>
  page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;

describe('the console on any screen, acted from', () => {
  let db: TestDatabase;
  let server: TestServer;
  let worker: TestServer;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sched: SchedClient;
  let browser: Browser | null = null;
  let pages: ConsolePages;
  let failed: Action;

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    db = await createTestDatabase('console_responsive');
    rx = await startReceiver();
    smtp = await startSmtpServer();
    const env = { SCHED_RATE_LIMIT_FACTOR: '20', SCHED_SMTP_URL: smtp.url };
    server = await startServer({ databaseUrl: db.url, role: 'api', env });
    worker = await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: server.dataDir });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const longPath = '/down/a/rather/long/path/that/should/wrap/on/a/phone';
    rx.on(longPath, { status: 503 });
    // Long names and hosts are what pushed the old layout past a phone's width.
    failed = await created(sched, {
      name: 'Sync the quarterly ledger with the accounting system of record',
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url: `${rx.url}${longPath}` },
    });
    const approval = await sched.approvals.create({
      name: 'Ship release 4.2',
      to: ['ada@example.com'],
      message: 'Ship it?',
      schedule: { wait: '1s' },
      timeout: '1d',
    });
    if (approval.skipped) throw new Error('skipped');
    failed = await statusOf(sched, failed.id, 'failed');
    await statusOf(sched, approval.action.id, 'awaiting_response');
  }, 120_000);

  afterAll(async () => {
    await pages?.close();
    await browser?.close();
    await worker?.stop();
    await server?.stop();
    await rx?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('opens every panel at 390 px behind a menu button with no horizontal scroll, and at 1440 px', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await page.setViewportSize(DESKTOP);
    await pages.signIn(page, server.url, server.apiKey);
    const nav = page.getByRole('navigation', { name: 'Panels' });
    const labels = (await nav.getByRole('link').allTextContents()).map((l) => l.trim());
    expect(labels.length).toBeGreaterThanOrEqual(12);
    // Wide: the menu button is not there, every panel link is.
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    for (const label of labels) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await settled(page);
      expect(await overflow(page), `${label} at 1440 px`).toBeLessThanOrEqual(0);
      await pages.accessible(page, `${label} at 1440 px`);
    }

    await page.setViewportSize(PHONE);
    const menu = page.getByRole('button', { name: 'Menu' });
    for (const label of labels) {
      // Narrow: the panels are folded away until the menu opens, and fold again once one is chosen.
      expect(await nav.isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await nav.getByRole('link', { name: label, exact: true }).click();
      await settled(page);
      expect(await nav.isVisible()).toBe(false);
      expect(await overflow(page), `${label} at 390 px`).toBeLessThanOrEqual(0);
      await pages.accessible(page, `${label} at 390 px`);
    }
    // An action's own page, with its long URL and definition, fits too; its facts wrap.
    await page.goto(`${server.url}/console/actions/${failed.id}`);
    await settled(page);
    expect(await overflow(page), 'action page at 390 px').toBeLessThanOrEqual(0);
    await pages.check(page, 'phone-action');
    // The actions list becomes cards, each value beside its label.
    await page.goto(`${server.url}/console/actions`);
    await settled(page);
    // A string: test code is type-checked without the DOM library.
    const display = "getComputedStyle(document.querySelector('table.list tbody tr')).display";
    expect(await page.evaluate(display)).toBe('block');
    expect(await overflow(page), 'actions list at 390 px').toBeLessThanOrEqual(0);
    await pages.check(page, 'phone-actions');
    expect(pages.csp.flat()).toEqual([]);
  }, 180_000);

  it('cancels exactly the selected actions through a bulk operation, after its dry run', async (ctx) => {
    if (!browser) return ctx.skip();
    const later = (name: string) =>
      created(sched, { name, schedule: { wait: '2h' }, request: { url: `${rx.url}/later` } });
    const picked = [await later('Bulk pick one'), await later('Bulk pick two')];
    const kept = [await later('Bulk keep one'), await later('Bulk keep two')];
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/actions?search=Bulk`);
    await expect.poll(() => page.locator('table.list tbody tr').count()).toBe(4);
    // Select all, then take two back out: what is cancelled is the selection, not the filter.
    await page.getByLabel('Select all on this page').check();
    await page.getByRole('group', { name: 'Selected actions' }).getByText('4 selected').waitFor();
    for (const a of kept) await page.getByLabel(`Select ${a.name}`).uncheck();
    await page.getByRole('group', { name: 'Selected actions' }).getByText('2 selected').waitFor();
    await page.getByRole('button', { name: 'Cancel selected' }).click();
    const dry = page.locator('.dry-run');
    await expect.poll(() => dry.textContent()).toContain('2 matched, 2 would be cancelled');
    // The dry run changed nothing.
    for (const a of [...picked, ...kept]) expect((await sched.actions.get(a.id)).status).toBe('scheduled');
    await pages.accessible(page, 'selection dry run');
    await page.getByRole('button', { name: 'Cancel 2 actions' }).click();
    await page
      .locator('.bulk-progress')
      .filter({ hasText: 'completed: 2 cancelled, 0 skipped, 0 failed' })
      .waitFor({ timeout: 30_000 });
    for (const a of picked) expect((await sched.actions.get(a.id)).status).toBe('cancelled');
    for (const a of kept) expect((await sched.actions.get(a.id)).status).toBe('scheduled');
    const ops = await sched.bulkOperations.list();
    expect(ops.data[0]).toMatchObject({ operation: 'cancel', matched: 2, affected: 2, filter: null });
    // The list reads itself again once the operation ends, and the selection is gone.
    await expect
      .poll(() => page.locator('table.list tbody tr').filter({ hasText: 'cancelled' }).count())
      .toBe(2);
    expect(await page.getByRole('group', { name: 'Selected actions' }).count()).toBe(0);
  }, 120_000);

  it('refreshes a list by itself, links a replay and its original, and retries a failed read', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    // A read that fails says so with a Retry button, which reads again.
    let refuse = true;
    await page.route('**/v1/actions?**', (route) =>
      refuse
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'unavailable', message: 'Try again shortly' } }),
          })
        : route.continue(),
    );
    await page.goto(`${server.url}/console/actions?search=Sync`);
    const alert = page.getByRole('alert');
    await alert.getByRole('button', { name: 'Retry' }).waitFor();
    refuse = false;
    await alert.getByRole('button', { name: 'Retry' }).click();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);

    // A replay made elsewhere shows up without a reload, and each row links to the other.
    const replay = await sched.actions.replay(failed.id);
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    const original = rows.filter({ hasText: 'replayed as' });
    await original.getByRole('link', { name: replay.id.slice(0, 8) }).click();
    await page.waitForURL(new RegExp(`/console/actions/${replay.id}$`));
    await page.getByRole('link', { name: failed.id }).click();
    await page.waitForURL(new RegExp(`/console/actions/${failed.id}$`));
    await page.getByRole('link', { name: replay.id }).waitFor();

    // An empty list says what to do next.
    await page.goto(`${server.url}/console/actions?search=nothing-like-this`);
    await page.getByText('No action matches these filters.').waitFor();
    await page.getByRole('link', { name: 'Clear the filters' }).waitFor();
  }, 120_000);

  it('moves by keyboard: `?` lists the shortcuts, `g a` opens the actions, `/` goes to the search field', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    await pages.accessible(page, 'keyboard shortcuts');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    await page.keyboard.press('g');
    await page.keyboard.press('a');
    await page.getByRole('heading', { name: 'Actions', level: 1 }).waitFor();
    await page.keyboard.press('/');
    await expect
      .poll(() => page.evaluate('document.activeElement && document.activeElement.name'))
      .toBe('search');
    // Typed into a field, the same keys are letters.
    await page.keyboard.type('g a?');
    expect(await page.getByLabel('Search').inputValue()).toBe('g a?');
    expect(await help.isVisible()).toBe(false);
  }, 60_000);

  it('schedules a webhook from the console: refused field by field, then created and delivered', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/actions`);
    await page.getByRole('link', { name: 'New action' }).click();
    await page.getByRole('heading', { name: 'New action', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New action' });
    await form.getByLabel('Name').fill('Made in the console');
    await form.getByLabel('URL').fill(`${rx.url}/from-console`);
    await form.getByLabel('Wait or time').fill('soon');
    await form.getByLabel('Body (JSON, or text)').fill('{"order": 42}');
    await pages.accessible(page, 'new action');
    // A wait the API does not read: its 422 names the field, and nothing is created.
    await form.getByRole('button', { name: 'Schedule the action' }).click();
    await form.getByRole('alert').getByText('HTTP 422').waitFor();
    // Beside the input it is about, which is marked invalid and described by it.
    const when = form.getByLabel('Wait or time');
    expect(await when.getAttribute('aria-invalid')).toBe('true');
    expect(
      await page.locator(`[id="${await when.getAttribute('aria-describedby')}"]`).textContent(),
    ).not.toBe('');
    expect((await sched.actions.list({ search: 'Made in the console' })).data).toHaveLength(0);
    await form.getByLabel('Wait or time').fill('1s');
    await form.getByRole('button', { name: 'Schedule the action' }).click();
    await page.getByRole('heading', { name: /Made in the console/, level: 1 }).waitFor();
    const id = page.url().split('/').pop()!;
    const delivered = await statusOf(sched, id, 'executed', 30_000);
    expect(delivered.request).toMatchObject({ url: `${rx.url}/from-console`, method: 'POST' });
    // The action's page moves on by itself from scheduled to executed, with its attempt.
    await page.locator('h1 .status-executed').waitFor({ timeout: 30_000 });
    await page.getByRole('list', { name: 'Delivery attempts' }).getByText('Attempt 1').waitFor();
    const [received] = await rx.waitFor('/from-console');
    expect(JSON.parse(received!.body)).toEqual({ order: 42 });
  }, 60_000);
});
