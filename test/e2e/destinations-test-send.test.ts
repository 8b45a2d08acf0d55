import { createClient, verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** Resolves at the start of the next 5-second window, the test limit's (windows are aligned to the epoch). */
const freshTestWindow = () => new Promise((r) => setTimeout(r, 5000 - (Date.now() % 5000) + 50));

// Test-sending a destination: one signed `sched.test` request to a loopback receiver, its outcome as the answer;
// the per-destination limit, the account scoping, the read scope, and that no action or quota is spent. A
// destination is an origin: the receiver's (`http://127.0.0.1:<port>`), or a bare host with the scheme and port in
// the body.
describe('POST /v1/destinations/{origin}/test', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  const HOST = '127.0.0.1';

  beforeAll(async () => {
    db = await createTestDatabase('destination_tests');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  const port = () => Number(new URL(rx.url).port);
  /** The receiver's origin, URL-encoded for a path. */
  const origin = () => encodeURIComponent(rx.url);

  it('sends one signed sched.test request and answers its status, duration and excerpt; no action, no quota', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    // A host is a destination once the account sends to it: an action due tomorrow makes it one.
    await sched.actions.create({ schedule: { wait: '1d' }, request: { url: `${rx.url}/later` } });
    const quota = await sched.quota.get();
    const total = (await sched.actions.list()).meta.total;
    rx.on('/hooks/test', { status: 200, body: 'got it' });

    const result = await sched.destinations.test(HOST, {
      path: '/hooks/test?x=1',
      scheme: 'http',
      port: port(),
    });
    expect(result).toMatchObject({
      url: `http://${HOST}:${port()}/hooks/test?x=1`,
      status: 200,
      signed: true,
      response_excerpt: 'got it',
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(result.error).toBeUndefined();

    const [req] = rx.to('/hooks/test');
    expect(req!.url).toBe('/hooks/test?x=1');
    expect(req!.headers['x-sched-event']).toBe('sched.test');
    expect(req!.json).toMatchObject({ type: 'sched.test', destination: rx.url });
    expect(req!.json.id).toBe(req!.headers['webhook-id']);
    const { secret } = await sched.signingSecret.get();
    const verified = verifyWebhook({
      secret: secret!,
      headers: req!.headers as Record<string, string>,
      body: req!.raw,
    });
    expect(verified.ok).toBe(true);
    expect(
      verifyWebhook({
        secret: `whsec_${Buffer.alloc(32).toString('base64')}`,
        headers: req!.headers as Record<string, string>,
        body: req!.raw,
      }).ok,
    ).toBe(false);

    // Not an action, not counted against the plan.
    expect((await sched.actions.list()).meta.total).toBe(total);
    expect((await sched.quota.get()).actions.used).toBe(quota.actions.used);

    // The audit log has the outcome, not the answer's body.
    const audit = await api(server, server.apiKey, 'GET', '/v1/audit-events?action=destination.test');
    expect(audit.body.data.at(-1)).toMatchObject({
      action: 'destination.test',
      resource: { type: 'destination', id: rx.url },
      details: { status: 200 },
    });
    expect(JSON.stringify(audit.body.data)).not.toContain('got it');
  });

  it('one test per host every 5 seconds: 429 with Retry-After; a refused connection is an outcome, not an error', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    // The limit's window is aligned to the clock: wait for a fresh one so both requests fall in it.
    await freshTestWindow();
    rx.on('/limited', { status: 503, body: 'down for maintenance' });
    const first = await sched.destinations.test(rx.url, { path: '/limited' });
    expect(first).toMatchObject({ status: 503, response_excerpt: 'down for maintenance' });
    // The same origin named as a bare host with its scheme and port: one destination, one limit.
    const second = await api(server, server.apiKey, 'POST', `/v1/destinations/${HOST}/test`, {
      path: '/limited',
      scheme: 'http',
      port: port(),
    });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('rate_limited');
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(rx.to('/limited')).toHaveLength(1);

    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 50));
    // Port 9 on loopback: nothing listens, so the connection is refused (an action due tomorrow makes it known).
    await sched.actions.create({ schedule: { wait: '1d' }, request: { url: `http://${HOST}:9/x` } });
    const refused = await sched.destinations.test(`http://${HOST}:9`);
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(/ECONNREFUSED|refused/i);
  });

  it("another account's destination is 404, a read key is 403, a bad path is 422 naming it", async () => {
    const made = await runCli(
      ['accounts', 'create', '--name', 'other', '--plan', 'business', '--json'],
      server.env,
    );
    expect(made.code, made.stderr).toBe(0);
    const otherKey = JSON.parse(made.stdout).api_key as string;
    const other = createClient({ baseUrl: server.url, apiKey: otherKey });
    await other.actions.create({
      schedule: { wait: '1d' },
      request: { url: 'https://other-only.example.com/x' },
    });

    // Each account sees only the hosts it sends to.
    const theirs = await api(
      server,
      server.apiKey,
      'POST',
      '/v1/destinations/other-only.example.com/test',
      {},
    );
    expect(theirs.status).toBe(404);
    const mine = await api(server, otherKey, 'POST', `/v1/destinations/${origin()}/test`, {});
    expect(mine.status).toBe(404);

    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const reader = await sched.keys.create({ name: 'reader', scopes: ['read'] });
    const read = await api(server, reader.key, 'POST', `/v1/destinations/${origin()}/test`, {});
    expect(read.status).toBe(403);

    const bad = await api(server, server.apiKey, 'POST', `/v1/destinations/${origin()}/test`, {
      path: 'no-slash',
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['path']);
    expect(rx.requests.filter((r) => r.headers['x-sched-event'] === 'sched.test')).toHaveLength(2);
  });

  it("the origin's own flow control applies: a test counts in its rate, and none goes out past it (429)", async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    await sched.destinations.update(rx.url, { flow: { rate: 1, period: '1m' } });
    try {
      rx.on('/flow', { status: 200 });
      await freshTestWindow();
      const first = await sched.destinations.test(rx.url, { path: '/flow' });
      expect(first.status).toBe(200);
      // The next 5-second window: the per-origin test limit allows one, the origin's rate (1 a minute) does not.
      await freshTestWindow();
      const held = await api(server, server.apiKey, 'POST', `/v1/destinations/${origin()}/test`, {
        path: '/flow',
      });
      expect(held.status).toBe(429);
      expect(held.body.message).toContain('flow control');
      const retryAfter = Number(held.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(5);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(rx.to('/flow')).toHaveLength(1);
    } finally {
      await sched.destinations.update(rx.url, { flow: null });
    }
  });

  it('the CLI: sched destinations test <host> --path prints the outcome and exits 1 unless 2xx', async () => {
    await freshTestWindow();
    rx.on('/cli', { status: 204 });
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const ok = await runCli(
      ['destinations', 'test', HOST, '--path', '/cli', '--scheme', 'http', '--port', String(port())],
      env,
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/status\s+204/);
    expect(ok.stdout).toMatch(/signed\s+yes/);
    expect(rx.to('/cli')).toHaveLength(1);

    await freshTestWindow();
    rx.on('/cli-fail', { status: 500 });
    const failed = await runCli(
      [
        'destinations',
        'test',
        HOST,
        '--path',
        '/cli-fail',
        '--scheme',
        'http',
        '--port',
        String(port()),
        '--json',
      ],
      env,
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).data).toMatchObject({ status: 500 });
  });

  it('the SSRF policy: without private destinations, a loopback host or plain http is a 422 and nothing is sent', async () => {
    const guarded = await startServer({
      databaseUrl: db.url,
      env: { SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false' },
      dataDir: server.dataDir,
    });
    // The loopback address over https: the address, not the scheme, is what the policy refuses.
    const loopbackTls = encodeURIComponent(`https://${HOST}:${port()}`);
    try {
      // Settings make an origin one of the account's destinations without sending anything to it.
      expect(
        (await api(guarded, server.apiKey, 'PUT', `/v1/destinations/${loopbackTls}`, { flow: { rate: 5 } }))
          .status,
      ).toBe(200);
      const before = rx.requests.length;
      const loopback = await api(guarded, server.apiKey, 'POST', `/v1/destinations/${loopbackTls}/test`, {});
      expect(loopback.status).toBe(422);
      expect(loopback.body.errors).toEqual({
        host: ['must not target a private, loopback, link-local or reserved address'],
      });
      await api(guarded, server.apiKey, 'PUT', '/v1/destinations/api.example.com', { flow: { rate: 5 } });
      const plain = await api(guarded, server.apiKey, 'POST', '/v1/destinations/api.example.com/test', {
        scheme: 'http',
      });
      expect(plain.status).toBe(422);
      expect(Object.keys(plain.body.errors)).toEqual(['scheme']);
      expect(rx.requests.length).toBe(before);
    } finally {
      await guarded.stop();
      await api(server, server.apiKey, 'PUT', `/v1/destinations/${loopbackTls}`, { flow: null });
    }
  });
});
