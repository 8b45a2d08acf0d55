import { createClient, type SchedClient } from '@sched/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// The console's action page reschedules and runs a pending action, and its schedule preview shows where a delivery
// window moves or skips each run: Debian's chromium against a real server, a real receiver.
describe('the console: reschedule, run now and the windowed preview in a browser', () => {
  let db: TestDatabase;
  let server: TestServer;
  let rx: Receiver;
  let sched: SchedClient;
  let browser: Browser | null = null;
  let pages: ConsolePages;

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    db = await createTestDatabase('console_windows');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '20' } });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
  }, 120_000);
  afterAll(async () => {
    await pages?.close();
    await browser?.close();
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('reschedules a pending action from its page, then runs it now', async (ctx) => {
    if (!browser) return ctx.skip();
    const made = await sched.actions.create({
      name: 'Nightly export',
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/export` },
    });
    if (made.skipped) throw new Error('skipped');
    const id = made.action.id;
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/actions/${id}`);
    await page.getByRole('heading', { name: /Nightly export/ }).waitFor();

    await page.getByRole('button', { name: 'Reschedule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reschedule “Nightly export”?' });
    await dialog.getByLabel('Due in').fill('3h');
    await dialog.getByRole('button', { name: 'Reschedule' }).click();
    await expect
      .poll(async () => Date.parse((await sched.actions.get(id)).next_attempt_at!) - Date.now())
      .toBeGreaterThan(2.9 * 3_600_000);

    await page.getByRole('button', { name: 'Run now' }).click();
    const asked = Date.now();
    await page
      .getByRole('dialog', { name: 'Run “Nightly export” now?' })
      .getByRole('button', { name: 'Run now' })
      .click();
    const [hit] = await rx.waitFor('/export');
    expect(hit!.at - asked).toBeLessThan(5_000);
    await eventually(async () => (await sched.actions.get(id)).status === 'executed');
    await page.reload();
    await page.getByRole('heading', { name: /Nightly export/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Run now' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reschedule' }).count()).toBe(0);
  });

  it('the schedule preview shows runs a holidays:US window skips', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    await page.goto(`${server.url}/console/schedule-preview`);
    const form = page.getByRole('form', { name: 'Schedule to preview' });
    await form.getByLabel('Starts').selectOption('scheduled_for');
    await form.getByLabel('Time (ISO 8601)').fill('2027-07-02T10:00:00-04:00');
    await form.getByLabel('Timezone').fill('America/New_York');
    await form.getByLabel('Repeat every').fill('1');
    await form.getByLabel('Window opens').fill('09:00');
    await form.getByLabel('Window closes').fill('17:00');
    await form.getByLabel('Closed days').fill('holidays:US');
    await form.getByLabel('Outside the window').selectOption('skip');
    await form.getByLabel('Runs to list').fill('3');
    await form.getByRole('button', { name: 'Preview' }).click();
    const row = page.getByRole('row').filter({ hasText: '2027-07-05 10:00:00' });
    await expect.poll(() => row.textContent()).toContain('skipped');
    await pages.check(page, 'schedule-preview-window');
    expect(pages.csp.flat()).toEqual([]);
  });
});
