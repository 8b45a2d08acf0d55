import { type Action, createClient, type SchedClient } from '@sched/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { statusOf } from '../support/wait.js';

// Console sessions over raw HTTP against a real `sched serve`: the key-for-cookie exchange, CSRF on cookie writes,
// the key's scopes and tenancy, the 12 h idle expiry, sign-out and revocation; and GET /v1/stats behind it.

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe('console sessions and /v1 through the cookie', () => {
  let db: TestDatabase;
  let server: TestServer;
  let rx: Receiver;
  let sched: SchedClient;
  let sql: pg.Client;
  let accountId = '';

  async function call(
    method: string,
    path: string,
    opts: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.cookie) headers.cookie = `sched_session=${opts.cookie}`;
    if (opts.csrf) headers['x-sched-csrf'] = opts.csrf;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  }

  /** Signs in with `key`; answers the cookie's value and the CSRF token. */
  async function signIn(key: string, headers: Record<string, string> = {}) {
    const res = await call('POST', '/console/session', { body: { api_key: key }, headers });
    expect(res.status).toBe(201);
    const setCookie = res.headers.get('set-cookie') ?? '';
    const cookie = /^sched_session=([^;]+)/.exec(setCookie)?.[1] ?? '';
    return {
      cookie,
      csrf: res.body.data.csrf_token as string,
      setCookie,
      scopes: res.body.data.scopes as string[],
    };
  }

  const webhook = (name: string) => ({ name, schedule: { wait: '7d' }, request: { url: `${rx.url}/x` } });

  beforeAll(async () => {
    db = await createTestDatabase('console_session');
    rx = await startReceiver();
    // Trusting loopback as a proxy lets a test say the request came over https (X-Forwarded-Proto).
    server = await startServer({ databaseUrl: db.url, env: { SCHED_TRUST_PROXY: '127.0.0.1' } });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    accountId = JSON.parse((await runCli(['accounts', 'list', '--json'], server.env)).stdout).data[0].id;
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('exchanges a key for an HttpOnly SameSite=Strict cookie whose id is stored only as a hash', async () => {
    expect((await call('POST', '/console/session', { body: {} })).body.errors).toHaveProperty('api_key');
    const wrong = await call('POST', '/console/session', { body: { api_key: 'sk_sched_nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const s = await signIn(server.apiKey);
    expect(s.setCookie).toBe(`sched_session=${s.cookie}; Path=/; HttpOnly; SameSite=Strict`);
    expect(s.cookie).toMatch(/^[\w-]{43}$/);
    // The account's first key holds every scope.
    expect(s.scopes).toEqual(['read', 'write', 'admin']);
    expect(s.cookie).not.toBe(s.csrf);
    const rows = await sql.query('select id_hash from console_sessions');
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toContain(s.cookie);

    // Only JSON is read: a form another site posts (text/plain or urlencoded) signs nobody in.
    for (const [type, status] of [
      ['text/plain', 422],
      ['application/x-www-form-urlencoded', 415],
    ] as const) {
      const form = await fetch(`${server.url}/console/session`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: type === 'text/plain' ? JSON.stringify({ api_key: server.apiKey }) : `api_key=${server.apiKey}`,
      });
      expect(form.status).toBe(status);
      expect(form.headers.get('set-cookie')).toBeNull();
    }
    // Signing in again from the same browser ends the session its cookie held.
    const again = await signIn(server.apiKey, { cookie: `sched_session=${s.cookie}` });
    expect((await call('GET', '/console/session', { cookie: s.cookie })).status).toBe(401);
    expect((await call('GET', '/console/session', { cookie: again.cookie })).status).toBe(200);

    // Behind https (as a trusted proxy says), the cookie is Secure and __Host- prefixed (no Domain, Path=/), and
    // only the prefixed cookie counts there: one a sibling subdomain planted under the old name is ignored.
    // From another client address (the proxy says so), so these calls spend none of the other tests' allowance.
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
    const secure = await call('POST', '/console/session', {
      body: { api_key: server.apiKey },
      headers: https,
    });
    const setSecure = secure.headers.get('set-cookie') ?? '';
    const secureId = /^__Host-sched_session=([^;]+)/.exec(setSecure)?.[1] ?? '';
    expect(setSecure).toBe(`__Host-sched_session=${secureId}; Path=/; HttpOnly; SameSite=Strict; Secure`);
    const over = (cookie: string) =>
      call('GET', '/console/session', { headers: { ...https, cookie } }).then((r) => r.status);
    expect(await over(`__Host-sched_session=${secureId}`)).toBe(200);
    expect(await over(`sched_session=${secureId}`)).toBe(401);
    expect(await over(`sched_session=${secureId}; __Host-sched_session=${secureId}`)).toBe(200);

    const me = await call('GET', '/console/session', { cookie: again.cookie });
    expect(me.body).toEqual({ data: { csrf_token: again.csrf, scopes: ['read', 'write', 'admin'] } });
    expect(me.headers.get('cache-control')).toBe('no-store');
    expect((await call('GET', '/console/session')).status).toBe(401);
  });

  it('lets /v1 act as the key through the cookie, with its rate limits, and CSRF on writes', async () => {
    const s = await signIn(server.apiKey);
    const list = await call('GET', '/v1/actions', { cookie: s.cookie });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-ratelimit-limit')).toBe('100');

    const noToken = await call('POST', '/v1/actions', { cookie: s.cookie, body: webhook('a') });
    expect(noToken.status).toBe(403);
    expect(noToken.body.message).toContain('x-sched-csrf');
    const wrongToken = await call('POST', '/v1/actions', {
      cookie: s.cookie,
      csrf: 'x'.repeat(43),
      body: webhook('a'),
    });
    expect(wrongToken.status).toBe(403);
    // Another session's token does not fit this session.
    const other = await signIn(server.apiKey);
    expect(
      (await call('POST', '/v1/actions', { cookie: s.cookie, csrf: other.csrf, body: webhook('a') })).status,
    ).toBe(403);
    expect((await sched.actions.list({ search: 'cookie-made' })).meta.total).toBe(0);

    const created = await call('POST', '/v1/actions', {
      cookie: s.cookie,
      csrf: s.csrf,
      body: webhook('cookie-made'),
    });
    expect(created.status).toBe(201);
    const cancelled = await call('DELETE', `/v1/actions/${created.body.data.id}`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(cancelled.body.data.status).toBe('cancelled');

    // No CORS grant lets another origin send the header (or read the token): the preflight gets no allow-origin.
    const preflight = await fetch(`${server.url}/v1/actions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-sched-csrf, content-type',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const readToken = await fetch(`${server.url}/console/session`, {
      headers: { origin: 'https://evil.example', cookie: `sched_session=${s.cookie}` },
    });
    expect(readToken.headers.get('access-control-allow-origin')).toBeNull();

    // Tenancy as for the key: another account's action is a 404.
    const intruderKey = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'intruder', '--plan', 'pro', '--json'], server.env))
        .stdout,
    ).api_key as string;
    const intruder = await signIn(intruderKey);
    expect(
      (await call('GET', `/v1/actions/${created.body.data.id}`, { cookie: intruder.cookie })).status,
    ).toBe(404);
  });

  it('gives a read-scope key a read-only session', async () => {
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    const readKey = JSON.parse(created.stdout).api_key as string;
    const s = await signIn(readKey);
    expect(s.scopes).toEqual(['read']);
    expect((await call('GET', '/v1/actions', { cookie: s.cookie })).status).toBe(200);
    const write = await call('POST', '/v1/actions', { cookie: s.cookie, csrf: s.csrf, body: webhook('ro') });
    expect(write.status).toBe(403);
    expect(write.body.message).toContain("'write' scope");
  });

  it('ends after 12 idle hours, not before, and each request restarts the idle clock', async () => {
    const s = await signIn(server.apiKey);
    const [{ id_hash: hash }] = (
      await sql.query('select id_hash from console_sessions order by created_at desc limit 1')
    ).rows;
    await sql.query(
      `update console_sessions set last_seen_at = now() - interval '11 hours 50 minutes' where id_hash = $1`,
      [hash],
    );
    expect((await call('GET', '/v1/stats', { cookie: s.cookie })).status).toBe(200);
    const seen = (await sql.query('select last_seen_at from console_sessions where id_hash = $1', [hash]))
      .rows[0];
    expect(Date.now() - new Date(seen.last_seen_at).getTime()).toBeLessThan(60_000);
    await sql.query(
      `update console_sessions set last_seen_at = now() - interval '12 hours 1 minute' where id_hash = $1`,
      [hash],
    );
    const expired = await call('GET', '/v1/stats', { cookie: s.cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('sign in again');
    expect((await call('GET', '/console/session', { cookie: s.cookie })).status).toBe(401);
  });

  it('ends 7 days after sign-in however busy it stays', async () => {
    const s = await signIn(server.apiKey, { 'x-forwarded-for': '198.51.100.8' });
    const [{ id_hash: hash }] = (
      await sql.query('select id_hash from console_sessions order by created_at desc limit 1')
    ).rows;
    await sql.query(
      `update console_sessions set created_at = now() - interval '6 days 23 hours' where id_hash = $1`,
      [hash],
    );
    expect((await call('GET', '/v1/stats', { cookie: s.cookie })).status).toBe(200);
    await sql.query(
      `update console_sessions set created_at = now() - interval '7 days 1 minute' where id_hash = $1`,
      [hash],
    );
    const expired = await call('GET', '/v1/stats', { cookie: s.cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('sign in again');
  });

  it('counts sign-outs against the unauthenticated rate limit (each looks a cookie up)', async () => {
    const out = await call('DELETE', '/console/session', {
      cookie: 'random-cookie-value',
      headers: { 'x-forwarded-for': '198.51.100.9' },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(Number(out.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(out.headers.get('x-ratelimit-limit')),
    );
  });

  it('ends on sign-out (which needs the CSRF token) and when its key is revoked', async () => {
    const s = await signIn(server.apiKey);
    // Sign-outs count against the unauthenticated limit: from an address of their own, to spare the file's.
    const apart = { 'x-forwarded-for': '198.51.100.10' };
    expect((await call('DELETE', '/console/session', { cookie: s.cookie, headers: apart })).status).toBe(403);
    expect((await call('GET', '/v1/stats', { cookie: s.cookie })).status).toBe(200);
    const out = await call('DELETE', '/console/session', { cookie: s.cookie, csrf: s.csrf, headers: apart });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sched_session=; Max-Age=0;/);
    expect((await call('GET', '/v1/stats', { cookie: s.cookie })).status).toBe(401);

    const created = JSON.parse(
      (
        await runCli(
          ['keys', 'create', '--account', accountId, '--scopes', 'read,write', '--json'],
          server.env,
        )
      ).stdout,
    );
    const t = await signIn(created.api_key);
    expect((await call('GET', '/v1/stats', { cookie: t.cookie })).status).toBe(200);
    // The operator's verb, through the database (`sched keys revoke` goes over the API).
    expect((await runCli(['admin', 'keys', 'revoke', created.key.id], server.env)).code).toBe(0);
    expect((await call('GET', '/v1/stats', { cookie: t.cookie })).status).toBe(401);
  });

  it('GET /v1/stats counts actions by state and the last 24 hours of deliveries', async () => {
    const before = await sched.stats();
    rx.on('/fails', { status: 500 });
    const ok = (await sched.actions.create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/ok` },
    })) as { action: Action };
    const bad = (await sched.actions.create({
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url: `${rx.url}/fails` },
    })) as { action: Action };
    await statusOf(sched, ok.action.id, 'executed');
    await statusOf(sched, bad.action.id, 'failed');
    const after = await sched.stats();
    expect(after.actions_by_status.executed).toBe(before.actions_by_status.executed + 1);
    expect(after.actions_by_status.failed).toBe(before.actions_by_status.failed + 1);
    expect(Object.keys(after.actions_by_status).sort()).toEqual(Object.keys(before.actions_by_status).sort());
    const d = after.deliveries;
    expect(d.attempts).toBe(before.deliveries.attempts + 2);
    expect(d.succeeded).toBe(before.deliveries.succeeded + 1);
    expect(d.success_rate).toBeCloseTo(d.succeeded / d.attempts);
    expect(d.lateness_p50_ms).not.toBeNull();
    expect(d.lateness_p99_ms!).toBeGreaterThanOrEqual(d.lateness_p50_ms!);
    expect(after.failing_destinations).toEqual([
      {
        origin: new URL(rx.url).origin,
        host: new URL(rx.url).hostname,
        attempts: 2,
        failed: 1,
        last_failed_at: expect.any(String),
      },
    ]);
    expect(d.hours).toHaveLength(24);
    expect(d.hours.reduce((n, h) => n + h.attempts, 0)).toBe(d.attempts);
    expect(Date.parse(d.hours[23]!.start)).toBeLessThanOrEqual(Date.parse(d.until));
    expect(Date.parse(d.until) - Date.parse(d.since)).toBe(24 * 3_600_000);
  });
});
