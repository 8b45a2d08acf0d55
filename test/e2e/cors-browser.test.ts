import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createTestDatabase } from '../support/database.js';
import { startServer, type TestServer } from '../support/server.js';

/** A page of another origin: a loopback server that serves one empty HTML page. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('CORS on /v1 (SCHED_CORS_ORIGINS) from a browser page of another origin', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sched: TestServer;
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  let browser: Browser | null;

  beforeAll(async () => {
    [allowed, other] = await Promise.all([pageServer(), pageServer()]);
    db = await createTestDatabase('cors');
    sched = await startServer({ databaseUrl: db.url, env: { SCHED_CORS_ORIGINS: allowed.origin } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await sched?.stop();
    await db?.drop();
    allowed?.server.close();
    other?.server.close();
  });

  /** What a page's script gets from a fetch to sched: the answer it may read, or the browser's refusal. */
  const callFrom = async (origin: string, path: string, init: Record<string, unknown>) => {
    const page = await browser!.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ([url, options]) => {
          try {
            const res = await fetch(url, options as RequestInit);
            return {
              status: res.status,
              body: await res.json(),
              remaining: res.headers.get('x-ratelimit-remaining'),
            };
          } catch (err) {
            return { refused: String(err) };
          }
        },
        [`${sched.url}${path}`, init] as const,
      );
    } finally {
      await page.close();
    }
  };

  it('answers preflights for listed origins on /v1 only', async () => {
    const preflight = (path: string, origin: string) =>
      fetch(`${sched.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
    const ok = await preflight('/v1/actions', allowed.origin);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(
      (await preflight('/v1/actions', other.origin)).headers.get('access-control-allow-origin'),
    ).toBeNull();
    expect((await preflight('/r/some-token', allowed.origin)).status).toBe(404);
  });

  it('a page of a listed origin creates and reads actions with fetch and reads the rate-limit headers', async () => {
    if (!browser) return; // no chromium on this developer machine; CI has one and fails without it
    const created = await callFrom(allowed.origin, '/v1/actions', {
      method: 'POST',
      headers: { authorization: `Bearer ${sched.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        schedule: { wait: '1h' },
        request: { url: 'https://example.com/from-browser' },
      }),
    });
    expect(created).toMatchObject({ status: 201, body: { data: { status: 'scheduled' } } });
    expect(Number((created as { remaining: string }).remaining)).toBeGreaterThan(0);
    const listed = await callFrom(allowed.origin, '/v1/actions', {
      headers: { authorization: `Bearer ${sched.apiKey}` },
    });
    expect(listed).toMatchObject({ status: 200, body: { meta: { total: 1 } } });
  });

  it('a page of any other origin is refused by the browser', async () => {
    if (!browser) return;
    const refused = await callFrom(other.origin, '/v1/actions', {
      headers: { authorization: `Bearer ${sched.apiKey}` },
    });
    expect(refused).toMatchObject({ refused: expect.stringMatching(/Failed to fetch/) });
  });
});
