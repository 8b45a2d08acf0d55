import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { sendUntilRefused, windowOf } from '../support/rate-limit.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Foundation end to end over raw HTTP: auth, tenancy, errors, rate limits, contacts, restart durability.
describe('platform over raw HTTP', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    db = await createTestDatabase('platform');
    server = await startServer({ databaseUrl: db.url });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('creates a default business account on first start and answers an empty contact list with rate-limit headers', async () => {
    expect(key).toMatch(/^sk_sched_/);
    // Not a terminal, and an external database: only the credentials file's path is printed, never the key.
    expect(server.output()).not.toContain(key);
    expect(server.output()).toContain(`${server.dataDir}/credentials`);
    // The window that counted the request ends after the request was sent (the answer may arrive after it ends).
    const sentAt = Date.now() / 1000;
    const res = await api(server, key, 'GET', '/v1/contacts');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(100);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Math.floor(sentAt));
  });

  it('runs `sched serve` with the heap flags of SCHED_HEAP_MB and SCHED_SEMI_SPACE_MB, as the same process', () => {
    // process.execve keeps the pid the caller started: the command line read from /proc is the restarted one.
    const argv = readFileSync(`/proc/${server.process.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(
      expect.arrayContaining(['--max-old-space-size=1024', '--max-semi-space-size=16', 'serve']),
    );
  });

  it('refuses a missing or wrong key with 401 and a message', async () => {
    const missing = await fetch(`${server.url}/v1/contacts`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      code: 'unauthorized',
      message: expect.stringContaining('API key'),
    });
    const wrong = await api(server, 'sk_sched_nope', 'GET', '/v1/contacts');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-ratelimit-limit')).toBe('20');
  });

  it('checks scopes: a read-only key can list but not create (403)', async () => {
    const accounts = await runCli(['accounts', 'list', '--json'], server.env);
    const accountId = JSON.parse(accounts.stdout).data[0].id as string;
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    expect(created.code).toBe(0);
    const readKey = JSON.parse(created.stdout).api_key as string;
    expect((await api(server, readKey, 'GET', '/v1/contacts')).status).toBe(200);
    const denied = await api(server, readKey, 'POST', '/v1/contacts', { name: 'x', email: 'x@example.com' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('write');
  });

  it('runs the contact lifecycle and validates with 422 and dotted paths', async () => {
    const bad = await api(server, key, 'POST', '/v1/contacts', { name: '', phone: '555-1234' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['name', 'phone']);
    const neither = await api(server, key, 'POST', '/v1/contacts', { name: 'Nobody' });
    expect(neither.status).toBe(422);
    expect(neither.body.errors.email[0]).toContain('at least one of email or phone');
    const tooLong = await api(server, key, 'POST', '/v1/contacts', {
      name: 'x'.repeat(256),
      email: 'a@example.com',
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toHaveProperty('name');

    const created = await api(server, key, 'POST', '/v1/contacts', {
      name: 'Ada',
      email: 'ada@example.com',
      phone: '+15551234567',
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data).toMatchObject({ name: 'Ada', email: 'ada@example.com', phone: '+15551234567' });

    const updated = await api(server, key, 'PUT', `/v1/contacts/${id}`, { phone: null });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Ada', email: 'ada@example.com', phone: null });
    const clearing = await api(server, key, 'PUT', `/v1/contacts/${id}`, { email: null });
    expect(clearing.status).toBe(422);
    expect((await api(server, key, 'GET', `/v1/contacts/${id}`)).body.data.email).toBe('ada@example.com');

    expect((await api(server, key, 'DELETE', `/v1/contacts/${id}`)).status).toBe(204);
    expect((await api(server, key, 'GET', `/v1/contacts/${id}`)).status).toBe(404);
  });

  it('answers malformed JSON with 400, unknown routes and ids with 404, all as {message}', async () => {
    const malformed = await api(server, key, 'POST', '/v1/contacts', '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'malformed_body', message: expect.any(String) });
    const route = await api(server, key, 'GET', '/v1/nothing-here');
    expect(route.status).toBe(404);
    expect(route.body.message).toBeTypeOf('string');
    expect((await api(server, key, 'GET', '/v1/contacts/not-a-uuid')).status).toBe(404);
  });

  it("answers 404 for another account's contact, exactly as for an unknown id", async () => {
    const other = await runCli(
      ['accounts', 'create', '--name', 'other', '--plan', 'pro', '--json'],
      server.env,
    );
    expect(other.code).toBe(0);
    const parsed = JSON.parse(other.stdout);
    expect(parsed.account).toMatchObject({ name: 'other', plan: 'pro' });
    const otherKey = parsed.api_key as string;
    const mine = await api(server, key, 'POST', '/v1/contacts', { name: 'Mine', email: 'mine@example.com' });
    const id = mine.body.data.id as string;
    for (const [method, body] of [['GET'], ['PUT', { name: 'stolen' }], ['DELETE']] as const) {
      const res = await api(server, otherKey, method, `/v1/contacts/${id}`, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'contact not found' });
    }
    expect((await api(server, otherKey, 'GET', '/v1/contacts')).body.data).toEqual([]);
    expect((await api(server, key, 'GET', `/v1/contacts/${id}`)).body.data.name).toBe('Mine');
  });

  it('reports liveness and readiness', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('a revoked key stops working at once', async () => {
    const accountId = JSON.parse((await runCli(['accounts', 'list', '--json'], server.env)).stdout).data[0]
      .id;
    const created = JSON.parse(
      (await runCli(['keys', 'create', '--account', accountId, '--json'], server.env)).stdout,
    );
    // A burst of requests records the key's use (at most once a minute, once per burst).
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => api(server, created.api_key, 'GET', '/v1/contacts')),
    );
    expect(burst.every((r) => r.status === 200)).toBe(true);
    const used = JSON.parse(
      (await runCli(['keys', 'list', '--account', accountId, '--json'], server.env)).stdout,
    ).data.find((k: { id: string }) => k.id === created.key.id);
    expect(Date.parse(used.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    // The operator's verb, through the database (`sched keys revoke` goes over the API).
    const revoked = await runCli(['admin', 'keys', 'revoke', created.key.id], server.env);
    expect(revoked.code).toBe(0);
    expect((await api(server, created.api_key, 'GET', '/v1/contacts')).status).toBe(401);
    const listed = JSON.parse(
      (await runCli(['keys', 'list', '--account', accountId, '--json'], server.env)).stdout,
    );
    const row = listed.data.find((k: { id: string }) => k.id === created.key.id);
    expect(row.revoked_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(created.api_key);
  });
});

describe('rate limits shared across API processes', () => {
  it('the 101st authenticated request in a minute gets 429 with Retry-After, spread over two --role api processes', async () => {
    const db = await createTestDatabase('ratelimit');
    const a = await startServer({ databaseUrl: db.url, role: 'api' });
    const b = await startServer({ databaseUrl: db.url, role: 'api' });
    try {
      // Alternating between the processes; the answers of the window the first refusal fell in.
      const counted = await sendUntilRefused((i) => api(i % 2 ? a : b, a.apiKey, 'GET', '/v1/contacts'));
      expect(counted.map((r) => r.status)).toEqual([...Array(100).fill(200), 429]);
      const over = counted.at(-1)!;
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(over.body).toEqual({ code: 'rate_limited', message: expect.any(String) });
      // The other process refuses too, unless the window has just rolled over.
      const other = await api(b, a.apiKey, 'GET', '/v1/contacts');
      expect(windowOf(other) === windowOf(over) ? other.status : 429).toBe(429);
    } finally {
      await a.stop();
      await b.stop();
      await db.drop();
    }
  });

  it('concurrent requests (counted together per turn of the event loop) still get exactly 100 in a minute, each its own count', async () => {
    const db = await createTestDatabase('ratelimit-burst');
    const a = await startServer({ databaseUrl: db.url, role: 'api' });
    const b = await startServer({ databaseUrl: db.url, role: 'api' });
    try {
      const results = await Promise.all(
        Array.from({ length: 130 }, (_, i) => api(i % 2 ? a : b, a.apiKey, 'GET', '/v1/contacts')),
      );
      // Windows are fixed minutes: the burst may straddle a boundary, so each window is checked on its own. In each,
      // every request was counted once: the first 100 are admitted with remaining counts 99, 98 ... each once, and
      // the rest refused.
      const windows = Map.groupBy(results, windowOf);
      expect(windows.size).toBeLessThanOrEqual(2);
      for (const answers of windows.values()) {
        const admitted = Math.min(100, answers.length);
        const remaining = answers
          .filter((r) => r.status === 200)
          .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
          .sort((x, y) => y - x);
        expect(remaining).toEqual(Array.from({ length: admitted }, (_, i) => 99 - i));
        expect(answers.filter((r) => r.status === 429)).toHaveLength(answers.length - admitted);
      }
    } finally {
      await a.stop();
      await b.stop();
      await db.drop();
    }
  });

  it('SCHED_RATE_LIMIT_FACTOR and the per-account factor scale the limits', async () => {
    const db = await createTestDatabase('ratefactor');
    const server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '0.05' } });
    try {
      // 100 × 0.05 = 5 a minute.
      const first = await api(server, server.apiKey, 'GET', '/v1/contacts');
      expect(first.headers.get('x-ratelimit-limit')).toBe('5');
      const acct = await runCli(
        ['accounts', 'create', '--name', 'big', '--plan', 'pro', '--rate-limit-factor', '4', '--json'],
        server.env,
      );
      const bigKey = JSON.parse(acct.stdout).api_key;
      const big = await api(server, bigKey, 'GET', '/v1/contacts');
      expect(big.headers.get('x-ratelimit-limit')).toBe('20');
      const id = JSON.parse(acct.stdout).account.id;
      await runCli(['accounts', 'update', id, '--rate-limit-factor', '10'], server.env);
      expect((await api(server, bigKey, 'GET', '/v1/contacts')).headers.get('x-ratelimit-limit')).toBe('50');
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});

describe('durability and shutdown', () => {
  it('keeps data across a restart and drains on SIGTERM with exit code 0', async () => {
    const db = await createTestDatabase('restart');
    const first = await startServer({ databaseUrl: db.url });
    const created = await api(first, first.apiKey, 'POST', '/v1/contacts', {
      name: 'Kept',
      email: 'kept@example.com',
    });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);
    const second = await startServer({ databaseUrl: db.url });
    try {
      expect(second.apiKey).toBe('');
      const list = await api(second, first.apiKey, 'GET', '/v1/contacts');
      expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Kept']);
    } finally {
      await second.stop();
      await db.drop();
    }
  });

  it('guards /metrics with SCHED_METRICS_TOKEN when it is set', async () => {
    const db = await createTestDatabase('metrics');
    const server = await startServer({ databaseUrl: db.url, env: { SCHED_METRICS_TOKEN: 'scrape-me' } });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      expect(
        (await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status,
      ).toBe(401);
      const key = { authorization: `Bearer ${server.apiKey}` };
      const missing = '00000000-0000-4000-8000-000000000000';
      await fetch(`${server.url}/v1/actions/${missing}`, { headers: key });
      await fetch(`${server.url}/v1/actions`, { headers: key });
      await fetch(`${server.url}/no/such/path/${missing}`);
      const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(text).toContain('sched_fire_lateness_seconds');
      // HTTP requests by route template (never the raw path) and status class, and the process's own metrics.
      const count = (labels: string[]) =>
        text
          .split('\n')
          .filter(
            (l) =>
              l.startsWith('sched_http_request_duration_seconds_count{') &&
              labels.every((x) => l.includes(x)),
          )
          .map((l) => Number(l.split(' ').at(-1)));
      expect(count(['method="GET"', 'route="/v1/actions/:id"', 'status_class="4xx"'])).toEqual([1]);
      expect(count(['method="GET"', 'route="/v1/actions"', 'status_class="2xx"'])).toEqual([1]);
      expect(text).toMatch(/route="unmatched",status_class="4xx"/);
      expect(text).not.toContain(missing);
      for (const family of [
        'process_cpu_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ])
        expect(text).toContain(family);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it("leaves the heap flags to NODE_OPTIONS and to Node's default at 0", async () => {
    const db = await createTestDatabase('heap-flags');
    const server = await startServer({
      databaseUrl: db.url,
      env: { NODE_OPTIONS: '--max-old-space-size=2048', SCHED_SEMI_SPACE_MB: '0' },
    });
    try {
      const argv = readFileSync(`/proc/${server.process.pid}/cmdline`, 'utf8').split('\0');
      expect(argv.filter((a) => a.startsWith('--max-'))).toEqual([]);
      expect((await api(server, server.apiKey, 'GET', '/v1/contacts')).status).toBe(200);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('refuses a bad configuration with a message naming the variable', async () => {
    const res = await runCli(['serve'], {
      SCHED_TIME_SCALE: 'fast',
      DATABASE_URL: 'postgres://x@127.0.0.1:1/x',
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('SCHED_TIME_SCALE');
    const prod = await runCli(['serve'], {
      NODE_ENV: 'production',
      SCHED_TIME_SCALE: '10',
      DATABASE_URL: 'postgres://x@127.0.0.1:1/x',
    });
    expect(prod.code).not.toBe(0);
    expect(prod.stderr).toContain('SCHED_TIME_SCALE');
  });
});
