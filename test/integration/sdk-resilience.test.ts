import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, SchedApiError, SchedConnectionError } from '@sched/sdk';
import { afterEach, describe, expect, it } from 'vitest';

/*
 * The SDK's transport against tiny loopback servers that misbehave on purpose: one that never answers (the
 * deadline), one that answers 503 before 201 (the retry of an idempotent create), one that limits with
 * Retry-After, and a create without an idempotency key that must not be repeated.
 */

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function loopback(
  handler: Handler,
): Promise<{ url: string; requests: { method: string; url: string; body: string }[] }> {
  const requests: { method: string; url: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', body });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

const action = {
  id: '0b9cc6b5-5d49-4a4a-9f1a-8c1f2b0e8a11',
  name: 'a',
  status: 'scheduled',
};

describe('the SDK transport', () => {
  it('rejects after timeoutMs when the server accepts and never answers', async () => {
    const { url } = await loopback(() => undefined);
    const sched = createClient({ baseUrl: url, apiKey: 'k', timeoutMs: 300, retry: false });
    const started = Date.now();
    const err = await sched.actions.list().catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(SchedConnectionError);
    expect((err as SchedConnectionError).code).toBe('timeout');
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(10_000);
  });

  it("rejects at once, as aborted, when the caller's signal fires", async () => {
    const controller = new AbortController();
    // Aborted once the request has arrived (and is never answered).
    const { url } = await loopback(() => controller.abort());
    const sched = createClient({ baseUrl: url, apiKey: 'k' });
    const pending = sched.actions.get(action.id, { signal: controller.signal });
    await expect(pending).rejects.toMatchObject({ name: 'SchedConnectionError', code: 'aborted' });
  });

  it('retries an idempotent create answered 503, and it succeeds once', async () => {
    let calls = 0;
    const { url, requests } = await loopback((_req, res) => {
      calls += 1;
      if (calls === 1)
        json(res, 503, { code: 'service_unavailable', message: 'busy' }, { 'retry-after': '0' });
      else json(res, 201, { data: action });
    });
    const sched = createClient({ baseUrl: url, apiKey: 'k', retry: { minDelayMs: 10 } });
    const created = await sched.actions.create({
      idempotency_key: 'order-17',
      schedule: { wait: '1h' },
      request: { url: 'https://example.com/hook' },
    });
    expect(created).toMatchObject({ skipped: false, action: { id: action.id } });
    expect(requests.map((r) => [r.method, r.url])).toEqual([
      ['POST', '/v1/actions'],
      ['POST', '/v1/actions'],
    ]);
    expect(JSON.parse(requests[1]!.body).idempotency_key).toBe('order-17');
  });

  it('sends a create without an idempotency key once, whatever the answer', async () => {
    const { url, requests } = await loopback((_req, res) =>
      json(res, 503, { code: 'service_unavailable', message: 'busy' }),
    );
    const sched = createClient({ baseUrl: url, apiKey: 'k', retry: { minDelayMs: 10 } });
    const err = await sched.actions
      .create({ schedule: { wait: '1h' }, request: { url: 'https://example.com/hook' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect((err as SchedApiError).code).toBe('service_unavailable');
    expect(requests).toHaveLength(1);
  });

  it('honours Retry-After on a 429 for a GET, then gives up after its retries with the last answer', async () => {
    const seen: number[] = [];
    const { url } = await loopback((_req, res) => {
      seen.push(Date.now());
      json(res, 429, { code: 'rate_limited', message: 'rate limit exceeded' }, { 'retry-after': '1' });
    });
    const sched = createClient({ baseUrl: url, apiKey: 'k', retry: { retries: 1, minDelayMs: 10 } });
    const err = await sched.quota.get().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 1 });
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(990);
  });

  it('retries a GET after a network error, through a custom fetch', async () => {
    const { url } = await loopback((_req, res) => json(res, 200, { data: [] }));
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed: ECONNRESET');
      return fetch(input, init);
    };
    const sched = createClient({ baseUrl: url, apiKey: 'k', fetch: flaky, retry: { minDelayMs: 10 } });
    expect(await sched.contacts.list()).toEqual([]);
    expect(calls).toBe(2);
  });
});
