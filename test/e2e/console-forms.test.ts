import { createClient, type SchedClient, verifyWebhook } from '@sched/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';

// Acting from the console, in Debian's chromium against a real server: an approval asked through its form (a 422
// beside the field it names, then the message at the SMTP sink), an alert rule's test from the list (the signed
// sample at a loopback receiver, then the limit's 429 in words), a destination's test-send (signed, verified with
// the SDK), and live lists that read nothing while the tab is hidden.

/** Resolves at the start of the next 5-second window, the test-send limit's (windows are aligned to the epoch). */
const freshTestWindow = () => new Promise((r) => setTimeout(r, 5000 - (Date.now() % 5000) + 50));

/** Makes the page's tab hidden or shown, as the browser would on switching tabs, and tells the page. */
const setVisibility = (page: Page, hidden: boolean) =>
  page.evaluate(`(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
    document.dispatchEvent(new Event('visibilitychange'));
  })()`);

describe('the console acted from: new approval, alert rule test, destination test-send, hidden tab', () => {
  let db: TestDatabase;
  let server: TestServer;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sched: SchedClient;
  let browser: Browser | null = null;
  let pages: ConsolePages;

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    db = await createTestDatabase('console_forms');
    rx = await startReceiver();
    smtp = await startSmtpServer();
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_RATE_LIMIT_FACTOR: '20', SCHED_SMTP_URL: smtp.url },
    });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
  }, 120_000);

  afterAll(async () => {
    if (pages) expect(pages.csp.flat(), 'CSP violations').toEqual([]);
    await pages?.close();
    await browser?.close();
    await server?.stop();
    await rx?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('asks for an approval through its form: a 422 beside its field, then created, and the email arrives', async (ctx) => {
    if (!browser) return ctx.skip();
    const carol = await sched.contacts.create({ name: 'Carol', email: 'carol@example.com' });
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/approvals`);
    await page.getByRole('link', { name: 'New approval' }).click();
    await page.getByRole('heading', { name: 'New approval', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New approval' });
    await form.getByLabel('Name (optional)').fill('Rotate the database credentials');
    await form.getByLabel(/^Recipients/).fill('ada@example.com\nbob@example.com');
    // A contact by name: its reference joins the list.
    await form.getByLabel('Add a contact').selectOption(`contact:${carol.id}:email`);
    expect(await form.getByLabel(/^Recipients/).inputValue()).toBe(
      `ada@example.com\nbob@example.com\ncontact:${carol.id}:email`,
    );
    await form.getByLabel('Message').fill('Rotate the production database credentials tonight?');
    await form.getByLabel('Wait, preset or time').fill('1s');
    await form.getByLabel('Timeout: how long the links answer (default 7d)').fill('1d');
    await form.getByLabel('Mode').selectOption('quorum');
    // More confirmations than recipients: the service's 422 is shown beside the input it names.
    const needed = form.getByLabel('Confirmations needed (2 to the number of recipients)');
    await needed.fill('5');
    await form.getByLabel('Confirm label').fill('Rotate now');
    await form.getByLabel('Decline label').fill('Not tonight');
    await form.getByRole('button', { name: 'Ask for approval' }).click();
    await form.getByRole('alert').getByText('HTTP 422').waitFor();
    expect(await needed.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await needed.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain(
      'must be at most the number of recipients (3)',
    );
    // Only the fields marked say what to change; the summary does not repeat them.
    expect(await form.getByRole('alert').textContent()).toContain(
      'The fields marked above say what to change',
    );
    expect(await form.getByRole('alert').textContent()).not.toContain('gate.min_approvals');
    expect((await sched.actions.list({ search: 'Rotate the database' })).data).toHaveLength(0);
    await pages.check(page, 'new-approval');

    await needed.fill('2');
    await form.getByRole('button', { name: 'Ask for approval' }).click();
    await page.getByRole('heading', { name: /Rotate the database credentials/, level: 1 }).waitFor();
    const id = page.url().split('/').pop()!;
    const made = await sched.actions.get(id);
    expect(made).toMatchObject({ mode: 'approval', name: 'Rotate the database credentials' });
    expect(made.gate).toMatchObject({
      message: 'Rotate the production database credentials tonight?',
      confirmation_mode: 'quorum',
      min_approvals: 2,
      timeout: '1d',
      buttons: ['Rotate now', 'Not tonight'],
    });
    for (const to of ['ada@example.com', 'bob@example.com', 'carol@example.com']) {
      const [mail] = await smtp.waitFor(to, 1, 30_000);
      expect(mail!.text).toContain('Rotate the production database credentials tonight?');
      expect(mail!.text).toContain('Rotate now: ');
    }
  }, 90_000);

  it("makes an alert rule (Slack by its webhook URL) and tests it from the list: each channel gets the sample, signed; a second test's 429 reads as words", async (ctx) => {
    if (!browser) return ctx.skip();
    rx.on('/alert-test', { status: 200 });
    const secret = 'console-forms-alert-secret';
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/alerts`);
    await page.getByRole('link', { name: 'New alert rule' }).click();
    await page.getByRole('heading', { name: 'New alert rule', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Receiver down');
    await page.getByLabel('Destination host').fill('127.0.0.1');
    await page.getByLabel('Channel 1 type').selectOption('webhook');
    await page.getByLabel('Channel 1 webhook url').fill(`${rx.url}/alert-test`);
    await page.getByLabel('Channel 1 signing secret').fill(secret);
    // A Slack channel given by its incoming-webhook URL (a loopback stand-in that takes Slack's JSON).
    await page.getByRole('button', { name: 'Add a channel' }).click();
    await page.getByLabel('Channel 2 type').selectOption('slack');
    await page.getByLabel('Channel 2 slack webhook url or channel id').fill(`${rx.url}/slack-alert`);
    await pages.check(page, 'new-alert-rule');
    // Refused (half a threshold): the chat channel made from the URL is removed again, nothing is left.
    await page.getByLabel('At least (events)').fill('3');
    await page.getByRole('button', { name: 'Create the rule' }).click();
    await page.getByRole('alert').filter({ hasText: 'HTTP 422' }).waitFor();
    expect(await page.locator('input[name="threshold_window"]').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => sched.channels.list()).toEqual([]);
    expect((await sched.alertRules.list()).data).toEqual([]);
    await page.locator('input[name="threshold_count"]').fill('');
    await page.getByRole('button', { name: 'Create the rule' }).click();
    await page.getByRole('heading', { name: /Receiver down/, level: 1 }).waitFor();
    // The URL became a chat channel of the account, which the rule names.
    const [chat] = await sched.channels.list();
    expect(chat).toMatchObject({
      type: 'slack',
      name: 'Receiver down (slack)',
      webhook_url: `${rx.url}/slack-alert`,
    });
    const [rule] = (await sched.alertRules.list()).data;
    expect(rule!.channels[1]).toMatchObject({ type: 'slack', channel: chat!.id });

    await page.goto(`${server.url}/console/alerts`);
    const row = page.getByRole('row').filter({ hasText: 'Receiver down' });
    await row.getByRole('button', { name: 'Test Receiver down' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a test of “Receiver down”?' });
    await dialog.getByRole('button', { name: 'Send a test' }).click();
    await page.getByRole('status').filter({ hasText: '“Receiver down”: 2 sample messages queued' }).waitFor();
    const [hook] = await rx.waitFor('/alert-test', 1, 30_000);
    expect(hook!.json).toMatchObject({ type: 'alert', test: true, rule: { name: 'Receiver down' } });
    const headers = hook!.headers as Record<string, string>;
    expect(verifyWebhook({ secret, headers, body: hook!.raw }).ok).toBe(true);
    expect(verifyWebhook({ secret: `${secret}-not`, headers, body: hook!.raw }).ok).toBe(false);
    const [slack] = await rx.waitFor('/slack-alert', 1, 30_000);
    expect(JSON.stringify(slack!.json)).toContain('Receiver down');

    // One test per rule a minute: the second is refused, and the dialog says when to try again.
    await row.getByRole('button', { name: 'Test Receiver down' }).click();
    await dialog.getByRole('button', { name: 'Send a test' }).click();
    const refused = dialog.getByRole('alert');
    await refused.getByText('HTTP 429').waitFor();
    expect(await refused.textContent()).toMatch(/Too soon: try again in \d+ s\./);
    await pages.accessible(page, 'alert rule test refused');
    expect(rx.to('/alert-test')).toHaveLength(1);
  }, 90_000);

  it("test-sends a destination from its page: the receiver verifies the signature; a second one's 429 reads as words", async (ctx) => {
    if (!browser) return ctx.skip();
    rx.on('/console-test', { status: 200, body: '{"received":true}' });
    // The receiver's origin is one the account sends to.
    await sched.actions.create({ schedule: { wait: '1d' }, request: { url: `${rx.url}/later` } });
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/destinations/${encodeURIComponent(rx.url)}`);
    const form = page.getByRole('form', { name: 'Test-send' });
    await form.getByLabel(/^Path on/).fill('/console-test');
    await freshTestWindow();
    await form.getByRole('button', { name: 'Send a test request' }).click();
    const outcome = page.getByRole('status').filter({ hasText: 'answered 200' });
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain('signed request');
    expect(await outcome.textContent()).toContain('{"received":true}');
    const [req] = rx.to('/console-test');
    expect(req!.json).toMatchObject({ type: 'sched.test', destination: rx.url });
    const { secret } = await sched.signingSecret.get();
    expect(
      verifyWebhook({ secret: secret!, headers: req!.headers as Record<string, string>, body: req!.raw }).ok,
    ).toBe(true);
    await pages.check(page, 'destination-test-send');

    await form.getByRole('button', { name: 'Send a test request' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'HTTP 429' });
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/Too soon: try again in [1-5] s\./);
    expect(rx.to('/console-test')).toHaveLength(1);
  }, 60_000);

  it('reads no list while the tab is hidden, and reads it at once when shown again', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    // The page's timers run on a clock the test moves, so minutes of back-off pass in a moment.
    await page.clock.install();
    const reads: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === '/v1/actions') reads.push(r.url());
    });
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/actions`);
    await page.getByRole('heading', { name: 'Actions', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.skeleton').count()).toBe(0);
    await expect.poll(() => reads.length).toBeGreaterThanOrEqual(1);

    // Shown, the list reads itself again within its longest back-off.
    const shown = reads.length;
    await page.clock.runFor(61_000);
    await expect.poll(() => reads.length).toBeGreaterThan(shown);

    // Hidden: however long passes, nothing is read.
    await expect.poll(() => page.locator('.skeleton').count()).toBe(0);
    await setVisibility(page, true);
    const hidden = reads.length;
    await page.clock.runFor(5 * 60_000);
    // Give a read the timers might have started a moment to reach the network.
    await new Promise((r) => setTimeout(r, 300));
    expect(reads.length).toBe(hidden);

    // Shown again: one read at once, without waiting for a timer.
    await setVisibility(page, false);
    await expect.poll(() => reads.length).toBe(hidden + 1);
  }, 60_000);

  it('lays the new forms out at 390 px with no horizontal scroll, axe clean', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await page.setViewportSize({ width: 390, height: 844 });
    await pages.signIn(page, server.url, server.apiKey);
    for (const [view, heading] of [
      ['approvals/new', 'New approval'],
      ['alerts', 'Alert rules'],
      ['alerts/new', 'New alert rule'],
      ['destinations/127.0.0.1', '127.0.0.1'],
    ] as const) {
      await page.goto(`${server.url}/console/${view}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await expect.poll(() => page.locator('.skeleton').count()).toBe(0);
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      expect(overflow, view).toBeLessThanOrEqual(0);
      await pages.accessible(page, `${view} at 390 px`);
    }
  }, 60_000);
});
