import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** What a newcomer meets first: `/`, and the banner `sched serve` prints when it is up. */
describe('the first minute', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('first_minute');
    // Readable logs, as a terminal gets them by default (SCHED_LOG_FORMAT=auto at a TTY).
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('/ sends a browser to the console and gives a client the JSON index of the service links', async () => {
    const page = await fetch(`${server.url}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      redirect: 'manual',
    });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/console');
    expect(page.headers.get('x-ratelimit-limit')).toBeTruthy();

    for (const accept of ['application/json', '*/*', undefined]) {
      const res = await fetch(`${server.url}/`, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      const index = (await res.json()) as { name: string; version: string; links: Record<string, string> };
      expect(index.name).toBe('sched');
      expect(Object.keys(index.links)).toEqual([
        'console',
        'api_reference',
        'openapi',
        'actions',
        'health',
        'readiness',
        'metrics',
      ]);
      // Every link answers (the actions need a key: 401, not 404).
      for (const [name, link] of Object.entries(index.links)) {
        const path = new URL(link).pathname;
        const status = (await fetch(`${server.url}${path}`)).status;
        expect([name, status]).toEqual([name, name === 'actions' ? 401 : 200]);
      }
    }
  });

  it('logs are readable one-liners: a request reads as an access-log line', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const line = /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/healthz 200 [\d.]+ms$/m;
    await expect.poll(() => line.test(server.output()), { timeout: 5_000 }).toBe(true);
    expect(server.output()).not.toMatch(/^\{"level"/m);
  });

  it('the CLI paints tables and errors at a terminal (FORCE_COLOR stands in for one) and never with NO_COLOR', async () => {
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: 'http://127.0.0.1:9/never' },
    });
    expect(created.status).toBe(201);
    const env = { SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const painted = await runCli(['actions', 'list'], { ...env, FORCE_COLOR: '1', NO_COLOR: '' });
    expect(painted.code, painted.stderr).toBe(0);
    expect(painted.stdout).toContain('\u001b[1mID');
    const plain = await runCli(['actions', 'list'], { ...env, FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(plain.stdout).toContain('scheduled');
    expect(plain.stdout).not.toContain('\u001b[');
    const failed = await runCli(['actions', 'get', 'nope'], { ...env, FORCE_COLOR: '1', NO_COLOR: '' });
    expect(failed.stderr.startsWith('\u001b[31merror\u001b[39m [not_found]')).toBe(true);
  });

  it('the banner names the console, the API reference and the key file', () => {
    const out = server.output();
    const publicUrl = /\(public URL (\S+)\)/.exec(out)?.[1];
    expect(publicUrl).toBeTruthy();
    expect(out).toContain(`console        ${publicUrl}/console`);
    expect(out).toContain(`API reference  ${publicUrl}/docs`);
    expect(out).toContain(`API key        in ${server.dataDir}/credentials`);
  });
});
