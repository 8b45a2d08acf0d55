import { type Action, createClient, type SchedClient } from '@sched/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { eventually, statusOf } from '../support/wait.js';

// The operator console in Debian's chromium against a real `sched serve`: sign-in, the panels on data created
// through the API, a cancel through a confirmation, a read-only console, sign-out; axe-core on every panel and
// no CSP violation anywhere. The panels of destinations, approvals, bulk operations and the audit log are in
// console-panels.test.ts.

describe('the operator console in a browser', () => {
  let db: TestDatabase;
  let server: TestServer;
  let rx: Receiver;
  let sched: SchedClient;
  let browser: Browser | null = null;
  let pages: ConsolePages;
  let readKey = '';
  let delivered: Action;
  let pending: Action;
  const openPage = () => pages.open();
  const signIn = (page: Page, key: string) => pages.signIn(page, server.url, key);
  const check = (page: Page, name: string) => pages.check(page, name);

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    db = await createTestDatabase('console_browser');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '20' } });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    // The README's example: a webhook five seconds out (here one), delivered to a local receiver.
    const readme = await sched.actions.create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/hook`, body: { hello: 'curl' } },
    });
    if (readme.skipped) throw new Error('skipped');
    pending = (
      (await sched.actions.create({
        name: 'Nightly invoice run',
        schedule: { wait: '7d' },
        request: { url: `${rx.url}/invoices`, headers: { Authorization: 'Bearer receiver-secret' } },
      })) as { action: Action }
    ).action;
    const chain = await sched.chains.create({
      name: 'Deploy with approval',
      steps: [
        { name: 'build', type: 'webhook', url: `${rx.url}/build` },
        { name: 'hold', type: 'delay', delay: '1h' },
      ],
    });
    await sched.templates.create({
      name: 'Order {{order_id}}',
      mode: 'webhook',
      request_config: {
        url: `${rx.url}/orders/{{order_id}}`,
        method: 'POST',
        body: { order: '{{order_id}}' },
      },
      placeholders: [{ name: 'order_id', required: true, description: 'The order number' }],
    });
    await sched.contacts.create({ name: 'Ada Lovelace', email: 'ada@example.com' });
    delivered = await statusOf(sched, readme.action.id, 'executed');
    // Its first step's delivery settles too, so the overview's figures hold still while the test reads them.
    await eventually(async () => (await sched.chains.get(chain.id)).steps[0]!.status === 'completed');
    const accounts = await runCli(['accounts', 'list', '--json'], server.env);
    const accountId = JSON.parse(accounts.stdout).data[0].id as string;
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    readKey = JSON.parse(created.stdout).api_key as string;
  }, 120_000);

  afterAll(async () => {
    await pages?.close();
    await browser?.close();
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('signs in with a key, shows the overview, and keeps no key in the browser', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await openPage();
    await page.goto(`${server.url}/console`);
    await page.getByRole('heading', { name: 'sched console' }).waitFor();
    await check(page, 'sign-in');
    await page.getByLabel('API key').fill('sk_sched_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('invalid API key');

    await signIn(page, server.apiKey);
    // Keyboard: on a page load the first Tab reaches the skip link, which moves focus to the content.
    await page.reload();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => c.name)).toEqual(['sched_session']);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(server.apiKey);
    const stored = (await page.evaluate(
      `JSON.stringify({ local: Object.keys(localStorage), session: Object.keys(sessionStorage), cookie: document.cookie })`,
    )) as string;
    expect(JSON.parse(stored)).toEqual({ local: [], session: [], cookie: '' });
    expect(await page.content()).not.toContain(server.apiKey);

    // Counts by state and the delivered attempt in the last 24 hours.
    await page.getByRole('heading', { name: 'Deliveries, last 24 hours' }).waitFor();
    const stats = await sched.stats();
    expect(stats.deliveries.attempts).toBe(2);
    expect(stats.actions_by_status.executed).toBeGreaterThanOrEqual(1);
    const figures = page.locator('.figures');
    await expect.poll(() => figures.textContent()).toContain('Attempts2');
    expect(await figures.textContent()).toContain('Success rate100.0 %');
    expect(await figures.textContent()).toContain(`Lateness p50${stats.deliveries.lateness_p50_ms} ms`);
    await page.getByRole('heading', { name: 'Quota used' }).waitFor();
    await page.locator('caption', { hasText: 'business plan' }).waitFor();
    await check(page, 'overview');
  });

  it("finds the README's action with its attempt and lateness, filters the list, and cancels an action", async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await openPage();
    await signIn(page, server.apiKey);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Actions' }).click();
    await page.getByRole('link', { name: delivered.name }).waitFor();
    await page.getByRole('link', { name: 'Nightly invoice run' }).waitFor();
    await check(page, 'actions');

    // Filters go to the URL (a shared link opens the same view) and narrow the list.
    await page.getByLabel('State').selectOption('executed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=executed/);
    // The form shows the filters of the URL it was opened on.
    expect(await page.getByLabel('State').inputValue()).toBe('executed');
    await page.getByRole('link', { name: delivered.name }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Nightly invoice run' }).count()).toBe(0);
    await page.goto(`${server.url}/console/actions?search=invoice`);
    await page.getByRole('link', { name: 'Nightly invoice run' }).waitFor();
    expect(await page.getByLabel('Search').inputValue()).toBe('invoice');
    expect(await page.getByRole('link', { name: delivered.name }).count()).toBe(0);

    // The delivered action's timeline: its attempt with status code, lateness and duration.
    await page.goto(`${server.url}/console/actions?status=executed`);
    await page.getByRole('link', { name: delivered.name }).click();
    const attempt = delivered.delivery_attempts[0]!;
    const timeline = page.getByRole('list', { name: 'Delivery attempts' });
    await timeline.waitFor();
    const text = (await timeline.textContent()) ?? '';
    expect(text).toContain('Attempt 1');
    expect(text).toContain('HTTP 200');
    expect(text).toContain(`Lateness${attempt.lateness_ms} ms`);
    expect(text).toContain('Duration');
    await check(page, 'action-detail');

    // Pause and resume, then cancel, each through its confirmation dialog; the API agrees each time.
    await page.goto(`${server.url}/console/actions/${pending.id}`);
    await page.getByRole('heading', { name: /Nightly invoice run/ }).waitFor();
    expect(await page.locator('.json').textContent()).toContain('Bearer receiver-secret');
    await page.getByRole('button', { name: 'Pause' }).click();
    const pause = page.getByRole('dialog', { name: 'Pause “Nightly invoice run”?' });
    await pause.getByLabel('Pause').selectOption('1 day');
    await pause.getByRole('button', { name: 'Pause' }).click();
    await page.locator('h1 .status-paused').waitFor();
    expect((await sched.actions.get(pending.id)).status).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page
      .getByRole('dialog', { name: 'Resume “Nightly invoice run”?' })
      .getByRole('button', { name: 'Resume' })
      .click();
    await page.locator('h1 .status-scheduled').waitFor();
    expect((await sched.actions.get(pending.id)).status).toBe('scheduled');
    // By keyboard: Enter opens the confirmation, Escape closes it with nothing done.
    await page.getByRole('button', { name: 'Cancel action' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel “Nightly invoice run”?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await sched.actions.get(pending.id)).status).toBe('scheduled');
    await page.getByRole('button', { name: 'Cancel action' }).click();
    await dialog.waitFor();
    await check(page, 'cancel-confirmation');
    await dialog.getByRole('button', { name: 'Cancel action' }).click();
    await page.locator('h1 .status-cancelled').waitFor();
    expect((await sched.actions.get(pending.id)).status).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Cancel action' }).count()).toBe(0);
  });

  it('shows chains as a timeline, templates with their trigger URL, and the settings', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await openPage();
    await signIn(page, server.apiKey);
    await page.goto(`${server.url}/console/chains`);
    await page.getByRole('link', { name: 'Deploy with approval' }).click();
    const steps = page.getByRole('list', { name: 'Steps' });
    await steps.waitFor();
    await expect.poll(() => steps.textContent()).toContain('1. build');
    expect(await steps.textContent()).toContain('2. hold');
    await check(page, 'chain-detail');

    await page.goto(`${server.url}/console/templates`);
    await page.getByRole('link', { name: 'Order {{order_id}}' }).click();
    await page.getByRole('heading', { name: 'Trigger URL' }).waitFor();
    expect(await page.locator('code.url').textContent()).toMatch(/\/t\/\S+…$/);
    await page.getByRole('button', { name: 'Regenerate URL' }).waitFor();
    await check(page, 'template-detail');

    // Schedule preview: a daily series in New York across the spring-forward night; nothing is created.
    const before = (await sched.actions.list()).meta.total;
    await page.goto(`${server.url}/console/schedule-preview`);
    await page.getByLabel('Starts').selectOption('scheduled_for');
    await page.getByLabel('Time (ISO 8601)').fill('2027-03-13T02:30:00-05:00');
    await page.getByLabel('Timezone').fill('America/New_York');
    await page.getByLabel('Repeat every').fill('1');
    await page.getByLabel('Unit').selectOption('d');
    await page.getByLabel('Runs to list').fill('3');
    await page.getByRole('button', { name: 'Preview' }).click();
    const runs = page.getByRole('heading', { name: /Runs in America\/New_York/ });
    await runs.waitFor();
    expect(await page.locator('table.list tbody tr').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('table.list').textContent()).toContain('2027-03-13 02:30:00');
    expect(await page.locator('table.list').textContent()).toContain('gap shifted');
    expect((await sched.actions.list()).meta.total).toBe(before);
    await check(page, 'schedule-preview');

    await page.goto(`${server.url}/console/settings`);
    await page.getByRole('cell', { name: 'Ada Lovelace' }).waitFor();
    await page.getByRole('heading', { name: 'Destination domains' }).waitFor();
    // What this (development) server can send: Slack and Teams need no setting, email without SMTP is kept.
    await page.getByRole('heading', { name: 'Notification channels' }).waitFor();
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      channels: Record<string, string>;
    };
    for (const [name, state] of Object.entries(ready.channels))
      expect(await page.locator(`tr[data-channel="${name}"]`).getAttribute('data-state')).toBe(state);
    expect(ready.channels.slack).toBe('configured');
    // The default account's first key holds the admin scope: its console manages API keys.
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('cell', { name: 'default', exact: true }).first().waitFor();
    // And the account's signing secret, made with the account: replaced here (the old one overlaps), shown once
    // made, the same the API answers.
    await page.getByRole('heading', { name: 'Signing secret' }).waitFor();
    const first = await sched.signingSecret.get();
    expect(first.secret).toMatch(/^whsec_/);
    await page
      .getByText('Actions and chains without a webhook secret of their own are signed with this secret.')
      .waitFor();
    await page.getByRole('button', { name: 'Make a new signing secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Make a new signing secret' }).click();
    await page.getByText('the replaced secret also signs until').waitFor();
    const made = await sched.signingSecret.get();
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.secret).not.toBe(first.secret);
    await page.getByText(made.secret!).waitFor();
    await sched.signingSecret.delete();
    await page.reload();
    await page
      .getByText('None: actions and chains without a webhook secret of their own are sent unsigned.')
      .waitFor();
    await check(page, 'settings');
  });

  it('gives a read-scope key a read-only console: no write button anywhere', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await openPage();
    await signIn(page, readKey);
    await page.getByText('read only').waitFor();
    // Schedule preview is a POST, which the server gives the write scope only: its panel is not offered.
    expect(
      await page
        .getByRole('navigation', { name: 'Panels' })
        .getByRole('link', { name: 'Schedule preview' })
        .count(),
    ).toBe(0);
    await page.goto(`${server.url}/console/settings`);
    await page.getByRole('heading', { name: 'Destination domains' }).waitFor();
    expect(await page.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Signing secret' }).count()).toBe(0);
    const live = (
      (await sched.actions.create({
        name: 'Read-only check',
        schedule: { wait: '7d' },
        request: { url: `${rx.url}/ro` },
      })) as {
        action: Action;
      }
    ).action;
    await page.goto(`${server.url}/console/actions/${live.id}`);
    await page.getByRole('heading', { name: /Read-only check/ }).waitFor();
    const templates = await sched.templates.list();
    const views = [
      `actions/${live.id}`,
      `templates/${templates.data[0]!.id}`,
      'chains',
      'settings',
      'failed',
    ];
    for (const view of views) {
      await page.goto(`${server.url}/console/${view}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const writes = page.getByRole('button', {
        name: /Cancel|Retry|Replay|Pause|Resume|Regenerate|Activate|Deactivate|Start verification|Check now|Rotate|Revoke|Create key/,
      });
      expect(await writes.count(), view).toBe(0);
    }
    // The credentials of the action's request are masked for a read key, as the API masks them.
    await page.goto(`${server.url}/console/actions/${pending.id}`);
    await page.locator('.json').waitFor();
    expect(await page.locator('.json').textContent()).not.toContain('receiver-secret');
  });

  it('signs out: the session ends on the server and the old cookie is refused', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await openPage();
    await signIn(page, server.apiKey);
    const [cookie] = await page.context().cookies();
    const before = await fetch(`${server.url}/v1/stats`, {
      headers: { cookie: `sched_session=${cookie!.value}` },
    });
    expect(before.status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').filter({ hasText: 'Signed out.' }).waitFor();
    await page.getByLabel('API key').waitFor();
    expect(await page.context().cookies()).toEqual([]);
    const after = await fetch(`${server.url}/v1/stats`, {
      headers: { cookie: `sched_session=${cookie!.value}` },
    });
    expect(after.status).toBe(401);
    await page.goto(`${server.url}/console/actions`);
    await page.getByLabel('API key').waitFor();
  });

  it('retries a failed group from the failed inbox through a bulk operation, its dry-run count shown first', async (ctx) => {
    if (!browser) return ctx.skip();
    rx.on('/down', { status: 503 });
    const failing = await Promise.all(
      ['Sync ledger A', 'Sync ledger B'].map(async (name) => {
        const made = (await sched.actions.create({
          name,
          schedule: { wait: '1s' },
          max_attempts: 1,
          request: { url: `${rx.url}/down` },
        })) as { action: Action };
        return made.action;
      }),
    );
    for (const a of failing) await statusOf(sched, a.id, 'failed');
    rx.on('/down', { status: 200 });

    const page = await openPage();
    await signIn(page, server.apiKey);
    await page
      .getByRole('navigation', { name: 'Panels' })
      .getByRole('link', { name: 'Failed inbox' })
      .click();
    const group = page.getByRole('link', { name: /^2 127\.0\.0\.1.* · http$/ });
    await group.click();
    await page.waitForURL(/error_class=http/);
    await page.getByRole('link', { name: 'Sync ledger A' }).waitFor();
    await page.getByRole('button', { name: 'Retry this group' }).click();
    // The dry run's count comes first; nothing has run yet.
    const dry = page.locator('.dry-run');
    await expect.poll(() => dry.textContent()).toContain('2 matched, 2 would be retried');
    expect((await sched.bulkOperations.list()).data).toEqual([]);
    await check(page, 'failed-inbox');
    await page.getByRole('button', { name: 'Retry 2 actions' }).click();
    await expect
      .poll(() => page.locator('.bulk [role="status"][aria-live]').textContent(), { timeout: 30_000 })
      .toContain('completed: 2 retried');
    const ops = (await sched.bulkOperations.list()).data;
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ operation: 'retry', status: 'completed', matched: 2, affected: 2 });
    for (const a of failing) await statusOf(sched, a.id, 'executed');
  });

  it('loaded every page without a CSP violation', (ctx) => {
    if (!browser) return ctx.skip();
    expect(pages.csp.length).toBeGreaterThan(0);
    expect(pages.csp.flat()).toEqual([]);
  });
});
