import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { rawRequest, slowBodyRequest } from '../support/raw-http.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// The HTTP edge over raw HTTP: authentication whatever the URL's spelling, rate-limit headers on every answer,
// body-less calls with a JSON content type, proxies and request ids, inbound timeouts, readiness text.
describe('the HTTP edge', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    db = await createTestDatabase('http_edge');
    server = await startServer({ databaseUrl: db.url });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  const spellings = ['/%761/contacts', '/v%31/contacts', 'http://x/v1/contacts', 'http://x/%761/contacts'];

  it.each(spellings)('authenticates %s like /v1/contacts', async (target) => {
    const anonymous = await rawRequest(server.url, target);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBe('20');
    const next = await rawRequest(server.url, target);
    expect(Number(next.headers['x-ratelimit-remaining'])).toBeLessThan(
      Number(anonymous.headers['x-ratelimit-remaining']),
    );
    const allowed = await rawRequest(server.url, target, { headers: { authorization: `Bearer ${key}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['x-ratelimit-limit']).toBe('100');
  });

  it('refuses an unauthenticated body before reading it, whatever the spelling', async () => {
    const res = await rawRequest(server.url, '/v%31/actions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not": "even valid for the contract"',
    });
    // Not 400 (malformed JSON): the hook refused the call before the body was parsed.
    expect(res.status).toBe(401);
  });

  it('accepts an empty body sent with Content-Type: application/json on every body-less route', async () => {
    const json = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'content-length': '0',
    };
    const contact = await api(server, key, 'POST', '/v1/contacts', { name: 'Ada', email: 'ada@example.com' });
    const cases: [string, string, number][] = [
      ['DELETE', `/v1/actions/${randomUUID()}`, 404],
      ['POST', `/v1/actions/${randomUUID()}/retry`, 404],
      ['GET', '/v1/contacts', 200],
      ['GET', '/v1/quota', 200],
      ['DELETE', `/v1/contacts/${contact.body.data.id}`, 204],
    ];
    for (const [method, path, status] of cases) {
      const res = await rawRequest(server.url, path, { method, headers: json, body: '' });
      expect({ method, path, status: res.status }).toEqual({ method, path, status });
    }
    // A route that needs a body says what is missing instead of "malformed JSON".
    const create = await rawRequest(server.url, '/v1/actions', { method: 'POST', headers: json, body: '' });
    expect(create.status).toBe(422);
    const broken = await fetch(`${server.url}/v1/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(broken.status).toBe(400);
  });

  it('counts the create limit on the routes the contract declares it for (RouteMeta.rateLimits), whatever the spelling', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const creates = async () => {
        const r = await client.query<{ n: string }>(
          `select coalesce(sum(hits), 0) as n from rate_limit_windows where bucket like 'createAction:%'`,
        );
        return Number(r.rows[0]!.n);
      };
      const auth = {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': '0',
      };
      const before = await creates();
      // Declared: retry and replay (404 here, counted before the handler looks), under any spelling of the path.
      for (const target of [`/v1/actions/${randomUUID()}/retry`, `/v%31/%61ctions/${randomUUID()}/replay`]) {
        const res = await rawRequest(server.url, target, { method: 'POST', headers: auth });
        expect(res.status).toBe(404);
      }
      expect(await creates()).toBe(before + 2);
      // Not declared: reads, and writes that make no action.
      const list = await rawRequest(server.url, '/v1/actions', {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(list.status).toBe(200);
      const cancel = await rawRequest(server.url, `/v1/actions/${randomUUID()}`, {
        method: 'DELETE',
        headers: auth,
      });
      expect(cancel.status).toBe(404);
      expect(await creates()).toBe(before + 2);
    } finally {
      await client.end();
    }
  });

  it('gives every error answer a stable code, and words validation messages in one voice', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/v1/actions', '{"oops":', 400, 'malformed_body'],
      ['GET', `/v1/actions/${randomUUID()}`, undefined, 404, 'not_found'],
      ['GET', '/v1/nothing-here', undefined, 404, 'route_not_found'],
      ['POST', '/v1/chains', { name: 'c', steps: [] }, 422, 'validation_failed'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await api(server, key, method, path, body);
      expect([path, res.status, res.body.code]).toEqual([path, status, code]);
      expect(typeof res.body.message).toBe('string');
    }
    expect((await api(server, 'sk_sched_unknown', 'GET', '/v1/actions')).body.code).toBe('unauthorized');
    const tooLarge = await api(server, key, 'POST', '/v1/contacts', `{"name":"${'x'.repeat(1_100_000)}"}`);
    expect([tooLarge.status, tooLarge.body.code]).toEqual([413, 'payload_too_large']);
    const notJson = await rawRequest(server.url, '/v1/contacts', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/xml' },
      body: 'hello',
    });
    expect([notJson.status, JSON.parse(notJson.body).code]).toEqual([415, 'unsupported_media_type']);

    // The review's body: hand-written rule messages and mapped schema issues read alike, never zod's defaults.
    const invalid = await api(server, key, 'POST', '/v1/actions', {
      schedule: { wait: 'soon' },
      request: { url: 'https://example.com/hook', method: 'FETCH' },
      max_attempts: 101,
      description: 7,
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('validation_failed');
    expect(invalid.body.errors).toMatchObject({
      'schedule.wait': [expect.stringMatching(/^must be a whole number followed by/)],
      'request.method': ["must be one of 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'"],
      // The contract's ceiling (a self-hosted plan may allow up to 100); the plan's own cap answers once the rest is valid.
      max_attempts: ['must be at most 100'],
      description: ['must be a string'],
    });
    expect(invalid.body.message).toMatch(/^[a-z_.]+: must .* \(and 3 more errors\)$/);
    expect(JSON.stringify(invalid.body)).not.toMatch(/Too big|Invalid option|expected/);
  });

  it('answers 422 (not 500) for a request body nested too deep, too many headers or a huge frequency', async () => {
    // Written as text: a recursive JSON.stringify of the test's own would overflow first.
    const deep = `${'['.repeat(50_000)}1${']'.repeat(50_000)}`;
    const res = await api(
      server,
      key,
      'POST',
      '/v1/actions',
      `{"request":{"url":"https://example.com/hook","body":${deep}},"schedule":{"wait":"1h"}}`,
    );
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['request.body']);
    const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, 'v']));
    const many = await api(server, key, 'POST', '/v1/actions', {
      request: { url: 'https://example.com/hook', headers },
      schedule: { wait: '1h' },
      recurrence: { frequency: 1e12, unit: 'm', end_type: 'never' },
    });
    expect(many.status).toBe(422);
    expect(Object.keys(many.body.errors).sort()).toEqual(['recurrence.frequency', 'request.headers']);
  });

  it('puts the rate-limit headers on every answer: probes, metrics, and 404s anywhere', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/nowhere', '/v1/nowhere', '/r']) {
      const res = await fetch(`${server.url}${path}`);
      expect({ path, limit: res.headers.get('x-ratelimit-limit') }).toEqual({
        path,
        limit: expect.stringMatching(/^\d+$/),
      });
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    }
    const authed = await api(server, key, 'GET', '/v1/nowhere');
    expect(authed.status).toBe(404);
    expect(authed.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it('does not take request ids from clients when no proxy is trusted, and ignores X-Forwarded-For', async () => {
    const res = await fetch(`${server.url}/healthz`, {
      headers: { 'x-request-id': 'chosen-by-client', 'x-forwarded-for': '203.0.113.7' },
    });
    expect(res.headers.get('x-request-id')).not.toBe('chosen-by-client');
    const a = await fetch(`${server.url}/v1/contacts`, { headers: { 'x-forwarded-for': '203.0.113.8' } });
    const b = await fetch(`${server.url}/v1/contacts`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    // One bucket: the socket's address, whatever the header claims.
    expect(Number(b.headers.get('x-ratelimit-remaining'))).toBeLessThan(
      Number(a.headers.get('x-ratelimit-remaining')),
    );
  });

  it('response links: per-IP limit before the token is looked at, 404 for a non-UUID attachment, https-only redirects', async () => {
    const created = await api(server, key, 'POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Files?',
        recipients: ['files@example.com'],
        attachments: [
          { name: 'plain.pdf', url: 'http://files.example.com/plain.pdf' },
          { name: 'tls.pdf', url: 'https://files.example.com/tls.pdf' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // No SMTP here: the message waits in the outbox, with the link an operator would pass on.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const rendered = await eventually(async () => {
      const rows = await client.query<{ rendered: string }>(
        'select rendered from outbox_messages where action_id = $1',
        [id],
      );
      return rows.rows[0]?.rendered;
    }).finally(() => client.end());
    const link = /Response link: (\S+)/.exec(rendered)![1]!;
    const attachments = (await api(server, key, 'GET', `/v1/actions/${id}`)).body.data.gate.attachments as {
      id: string;
      name: string;
    }[];
    const idOf = (name: string) => attachments.find((a) => a.name === name)!.id;

    const notUuid = await fetch(`${link}/attachments/not-a-uuid`, {
      headers: { accept: 'application/json' },
    });
    expect(notUuid.status).toBe(404);
    const plain = await fetch(`${link}/attachments/${idOf('plain.pdf')}`, { redirect: 'manual' });
    expect(plain.status).toBe(404);
    const tls = await fetch(`${link}/attachments/${idOf('tls.pdf')}`, { redirect: 'manual' });
    expect(tls.status).toBe(302);
    expect(tls.headers.get('location')).toBe('https://files.example.com/tls.pdf');

    // The limit counts in windows of a wall-clock minute: 61 requests straddling its end would start counting again
    // (a loaded run once saw that), so they start in a fresh window when fewer than 15 s of this one are left.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
    let last: Response | undefined;
    for (let i = 0; i < 61; i += 1) {
      last = await fetch(`${server.url}/r/random-token-${i}`, { headers: { accept: 'application/json' } });
      if (last.status === 429) break;
      expect(last.status).toBe(404);
    }
    expect(last!.status).toBe(429);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('never shows the database error text on /readyz', async () => {
    const name = new URL(db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
    try {
      await admin.query(`alter database ${pg.escapeIdentifier(name)} with allow_connections false`);
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      const body = await eventually(async () => {
        const res = await fetch(`${server.url}/readyz`);
        return res.status === 503 ? await res.json() : null;
      });
      expect(body).toEqual({
        status: 'unavailable',
        version: expect.any(String),
        // A fixed word (the availability state may prefix it), never the driver's text.
        checks: { database: expect.stringMatching(/^(unavailable: )?unreachable$/) },
      });
    } finally {
      await admin.query(`alter database ${pg.escapeIdentifier(name)} with allow_connections true`);
      await admin.end();
    }
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200);
  });
});

describe('the HTTP edge behind a trusted proxy, with short timeouts', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('http_edge_proxy');
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TRUST_PROXY: '127.0.0.1', SCHED_HTTP_REQUEST_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('counts each client of the proxy on its own and keeps the proxy-given request id', async () => {
    const a = await fetch(`${server.url}/v1/contacts`, { headers: { 'x-forwarded-for': '203.0.113.8' } });
    const b = await fetch(`${server.url}/v1/contacts`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(a.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(b.headers.get('x-ratelimit-remaining')).toBe('19');
    const res = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'from-the-proxy' } });
    expect(res.headers.get('x-request-id')).toBe('from-the-proxy');
    // Even a trusted proxy's id must look like an id: it is written on every log line.
    const odd = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('cuts off a client that sends its body too slowly', async () => {
    const { text, ms } = await slowBodyRequest(server.url, '/v1/contacts', {
      authorization: `Bearer ${server.apiKey}`,
    });
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(10_000);
  });
});
