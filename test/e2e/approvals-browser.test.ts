import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchCsp } from '../support/browser.js';
import { createTestDatabase } from '../support/database.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { eventually } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// A person with a browser: Debian's chromium (playwright-core) opens the link from a real email sent by the real
// service, confirms, sees the result; the link then refuses a second answer, and an expired link is refused.
describe('the response page in a real browser', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let browser: Browser | null;

  beforeAll(async () => {
    browser = await launchBrowser();
    db = await createTestDatabase('browser');
    smtp = await startSmtpServer();
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '3600', SCHED_RATE_LIMIT_FACTOR: '100', SCHED_SMTP_URL: smtp.url },
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
    await db?.drop();
  });

  const approval = async (to: string, gate: Record<string, unknown> = {}) => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      mode: 'approval',
      name: 'Refund order 1042',
      schedule: { wait: '1s' },
      gate: { message: 'Refund 120 EUR to the customer?', recipients: [to], ...gate },
    });
    expect(res.status).toBe(201);
    const [mail] = await smtp.waitFor(to);
    await eventually(
      async () =>
        (await api(server, server.apiKey, 'GET', `/v1/actions/${res.body.data.id}`)).body.data.status ===
        'awaiting_response',
    );
    return { id: res.body.data.id as string, link: linkIn(mail!.text) };
  };

  it('opens the link, confirms with a comment, sees the result; a second answer is refused', async (ctx) => {
    if (!browser) return ctx.skip();
    const { id, link } = await approval('buyer@example.com');
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const violations = await watchCsp(page);
    const response = await page.goto(link);
    expect(response!.status()).toBe(200);
    await expect(page.locator('h1').textContent()).resolves.toContain('Refund order 1042');
    await page.locator('textarea[name="comment"]').fill('Customer has a receipt');
    await page.locator('button[name="decision"][value="confirm"]').click();
    await page.waitForLoadState('load');
    await expect(page.locator('[role="status"]').textContent()).resolves.toMatch(/confirm|approv/i);
    expect(violations).toEqual([]);
    const action = (await api(server, server.apiKey, 'GET', `/v1/actions/${id}`)).body.data;
    expect(action.status).toBe('executed');
    expect(action.recipients[0]).toMatchObject({
      status: 'confirmed',
      response_comment: 'Customer has a receipt',
    });

    // Back to the link: it is spent.
    const again = await page.goto(link);
    expect(again!.status()).toBe(410);
    await page.close();
  });

  it('an expired link shows the expired page (410)', async (ctx) => {
    if (!browser) return ctx.skip();
    const { id, link } = await approval('late@example.com', { timeout: '1h', on_timeout: 'expire' });
    await eventually(
      async () =>
        (await api(server, server.apiKey, 'GET', `/v1/actions/${id}`)).body.data.status === 'expired',
    );
    const page = await browser.newPage();
    const res = await page.goto(link);
    expect(res!.status()).toBe(410);
    await expect(page.locator('h1').textContent()).resolves.toMatch(/expired/i);
    await page.close();
  });
});
