import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Action } from '@sched/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// The console's first use, as a new user meets it: the service started as `npm start` starts it (`sched serve` with no
// DATABASE_URL, so the embedded PostgreSQL, and the default account's key saved to the data directory's
// `credentials`), the README's example action created with curl's request, then /console signed in with the key
// read from that file the README's way: the action, its attempt and its lateness are there.
describe('the quick start, in the console', () => {
  let server: TestServer;
  let rx: Receiver;
  let browser: Browser | null = null;
  let pages: ConsolePages;

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    rx = await startReceiver();
    // What `npm start` runs after building: `sched serve`, development mode, the embedded database.
    server = await startServer({ databaseUrl: '', env: { NODE_ENV: 'development' } });
  }, 120_000);

  afterAll(async () => {
    await pages?.close();
    await browser?.close();
    await server?.stop();
    await rx?.close();
  });

  it("signs in with the key from the credentials file and finds the README's action, its attempt and lateness", async (ctx) => {
    if (!browser) return ctx.skip();
    // KEY=$(sed -n 's/^SCHED_API_KEY=//p' .sched/credentials)
    const credentials = readFileSync(join(server.dataDir, 'credentials'), 'utf8');
    const key = /^SCHED_API_KEY=(.+)$/m.exec(credentials)?.[1] ?? '';
    expect(key).toMatch(/^sk_sched_/);
    // The README's curl, to a local receiver instead of port 9000.
    const created = await api(server, key, 'POST', '/v1/actions', {
      schedule: { wait: '5s' },
      request: { url: `${rx.url}/hook`, body: { hello: 'curl' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await rx.waitFor('/hook', 1, 30_000);
    const action = await eventually(async () => {
      const a = (await api(server, key, 'GET', `/v1/actions/${id}`)).body.data as Action;
      return a.status === 'executed' ? a : null;
    }, 30_000);
    const attempt = action.delivery_attempts[0]!;

    const page = await pages.open();
    await pages.signIn(page, server.url, key);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Actions' }).click();
    await page.getByRole('link', { name: action.name }).click();
    const timeline = page.getByRole('list', { name: 'Delivery attempts' });
    await timeline.waitFor();
    const text = (await timeline.textContent()) ?? '';
    expect(text).toContain('Attempt 1');
    expect(text).toContain('HTTP 200');
    expect(text).toContain(`Lateness${attempt.lateness_ms} ms`);
    expect(pages.csp.flat()).toEqual([]);
  }, 120_000);
});
