import { createClient } from '@sched/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { consolePages } from '../support/console.js';
import { createTestDatabase } from '../support/database.js';
import { seedActions, sqlValue } from '../support/seed.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Past 10,000 matching actions, `GET /v1/actions` estimates its `meta.total` instead of counting (a count of ten
// million took seconds) and says so with `total_exact: false`; below, the answer is as before, without the member.
// The SDK's walk, the CLI and the console follow the estimate without losing an action; the overview's counts by
// state are estimated the same way, state by state.
describe('a list whose total is estimated, through HTTP, the SDK, the sched binary and the console', {
  timeout: 120_000,
}, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let browser: Browser | null = null;
  const SEEDED = 10_250;

  beforeAll(async () => {
    db = await createTestDatabase('list_estimate_e2e');
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    const accountId = await sqlValue<string>(db.url, 'select id from accounts order by created_at limit 1');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(db.url, {
      accountId,
      count: SEEDED - 50,
      status: 'scheduled',
      name: 'bulk',
      ...receiver,
    });
    await seedActions(db.url, { accountId, count: 50, status: 'executed', name: 'few', ...receiver });
    await sqlValue(db.url, 'analyze actions');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await db?.drop();
  });

  it('answers an estimate past the limit, flagged, and a count below it, unflagged', async () => {
    const all = await api(server, server.apiKey, 'GET', '/v1/actions?per_page=100');
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(100);
    expect(all.body.meta.total_exact).toBe(false);
    expect(all.body.meta.total).toBeGreaterThan(10_000);
    expect(all.body.meta.last_page).toBe(Math.ceil(all.body.meta.total / 100));

    const few = await api(server, server.apiKey, 'GET', '/v1/actions?status=executed&per_page=20');
    expect(few.body.meta).toEqual({ current_page: 1, last_page: 3, total: 50, per_page: 20 });
  });

  it("estimates the overview's pending states past the limit and counts the rest", async () => {
    const stats = await api(server, server.apiKey, 'GET', '/v1/stats');
    expect(stats.status).toBe(200);
    const figures = stats.body.data;
    expect(figures.estimated_statuses).toEqual(['scheduled', 'resolved']);
    expect(figures.actions_by_status.executing).toBe(0);
    expect(figures.actions_by_status.scheduled).toBeGreaterThan(10_000);
    // None promoted or in flight: too rare for the statistics to see, so none estimated.
    expect(figures.actions_by_status.resolved).toBe(0);
    expect(figures.actions_by_status.executed).toBe(50);
    expect(figures.actions_by_status.failed).toBe(0);
    expect(figures.approvals_waiting).toBe(0);
    expect(figures).not.toHaveProperty('approvals_waiting_exact');
  });

  it("estimates the destinations list's figures past the limit and counts what is in flight", async () => {
    const list = await api(server, server.apiKey, 'GET', '/v1/destinations');
    expect(list.status).toBe(200);
    const [only, ...others] = list.body.data;
    expect(others).toEqual([]);
    expect(only).toMatchObject({
      origin: 'http://127.0.0.1:9',
      counts_exact: false,
      in_flight: 0,
      failed: 0,
    });
    expect(Math.abs(only.actions - SEEDED) / SEEDED).toBeLessThan(0.2);
    expect(Math.abs(only.scheduled - (SEEDED - 50)) / SEEDED).toBeLessThan(0.2);
  });

  it('walks every action with the SDK, and the CLI says the total is about so many', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const ids = new Set((await sched.actions.listAll({ per_page: 100 })).map((a) => a.id));
    expect(ids.size).toBe(SEEDED);

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const listed = await runCli(['actions', 'list', '--per-page', '5'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/page 1 of about \d+ \(about \d+ actions; --page N or --all for more\)/);
    const destinations = await runCli(['destinations', 'list'], env);
    expect(destinations.code).toBe(0);
    expect(destinations.stdout).toMatch(/http:\/\/127\.0\.0\.1:9 .* about \d+ +about \d+ +0 +about 0/);
  });

  it('the console says about so many, and offers the next page', async (ctx) => {
    browser = await launchBrowser();
    if (!browser) return ctx.skip();
    const pages = consolePages(browser);
    const page = await pages.open();
    await pages.signIn(page, server.url, server.apiKey);
    // The overview: an estimated count says so, a counted one does not.
    const states = page.getByRole('region', { name: 'Actions by state' });
    await expect.poll(() => states.getByRole('listitem').allTextContents()).toContain('50 executed');
    const texts = await states.getByRole('listitem').allTextContents();
    expect(texts.find((t) => t.endsWith('scheduled'))).toMatch(/^about \d+ scheduled$/);
    expect(texts).toContain('0 failed');
    // The destinations list: its estimated figures say so.
    await page
      .getByRole('navigation', { name: 'Panels' })
      .getByRole('link', { name: 'Destinations' })
      .click();
    const row = page.getByRole('row', { name: /127\.0\.0\.1:9/ });
    await expect.poll(() => row.textContent()).toMatch(/about \d+.*about \d+/);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Actions' }).click();
    const pager = page.getByRole('navigation', { name: 'actions pages' });
    await expect.poll(() => pager.textContent()).toMatch(/^about \d+ actions · page 1 of about \d+/);
    expect(await pager.getByRole('button', { name: 'Next page' }).count()).toBe(1);
    expect(pages.csp.flat()).toEqual([]);
  });
});
