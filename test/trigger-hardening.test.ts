import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from './support/database.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { api, startServer, type TestServer } from './support/server.js';

/**
 * The public trigger surface and the chain engine against the probes of the security review at c081757
 * (shared/reviews/security-c081757.md): each probe is sent as the attacker would, and the receiver on loopback
 * shows where the request really went.
 */
describe('trigger and chain hardening (review c081757)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let key: string;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);

  /** A public trigger: no Bearer header. */
  async function trigger(triggerUrl: string, body: Record<string, unknown> | string) {
    const res = await fetch(`${server.url}${new URL(triggerUrl).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  async function template(body: Record<string, unknown>) {
    const res = await call('POST', '/v1/templates', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; trigger_url: string };
  }

  beforeAll(async () => {
    db = await createTestDatabase('hardening');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  describe('typed placeholders and deep values (N-L1, N-L4)', () => {
    it('a value that does not fit its placeholder is a 422 naming it; anonymous values are strings', async () => {
      const t = await template({
        name: 'Typed {{id}}',
        mode: 'webhook',
        request_config: { url: `${rx.url}/typed`, body: { id: '{{id}}', qty: '{{qty}}' } },
        placeholders: [
          { name: 'id', required: true },
          { name: 'qty', type: 'integer', default: 1 },
        ],
      });
      const obj = await trigger(t.trigger_url, { id: { $ne: null, role: 'admin' } });
      expect(obj.status).toBe(422);
      expect(obj.body.errors).toHaveProperty('id');
      const qty = await trigger(t.trigger_url, { id: 'A', qty: 'lots' });
      expect(qty.status).toBe(422);
      expect(qty.body.errors).toHaveProperty('qty');
      expect(qty.body.message).toContain('qty');
      expect((await trigger(t.trigger_url, { id: 7, qty: '3' })).status).toBe(201);
      const [got] = await rx.waitFor('/typed');
      expect(got!.json).toEqual({ id: '7', qty: 3 });
      const proto = await call('POST', '/v1/templates', {
        name: 'x',
        mode: 'webhook',
        request_config: { url: `${rx.url}/x` },
        placeholders: [{ name: 'constructor' }],
      });
      expect(proto.status).toBe(422);
    });

    it('deep JSON in a trigger body or a chain input is a 422, never a 500', async () => {
      const t = await template({
        name: 'Order {{id}}',
        mode: 'webhook',
        request_config: { url: `${rx.url}/deep` },
        placeholders: [{ name: 'id', required: true }],
      });
      // Written as text: JSON.stringify itself gives up around 5,000 levels.
      const deep = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
      const res = await trigger(t.trigger_url, `{"id":${deep}}`);
      expect(res.status).toBe(422);
      const extra = await trigger(t.trigger_url, `{"id":"A","other":${deep}}`);
      expect(extra.status).toBe(422);
      const steps = JSON.stringify([
        { name: 'a', type: 'wait', delay: '1s' },
        { name: 'b', type: 'wait', delay: '1s' },
      ]);
      const chain = await call(
        'POST',
        '/v1/chains',
        `{"name":"deep-input","input":{"v":${deep}},"steps":${steps}}`,
      );
      expect(chain.status).toBe(422);
      expect(Object.keys(chain.body.errors).join(' ')).toContain('input');
    });
  });

  describe('N-H1: a value never rewrites the URL the owner wrote', () => {
    it('path traversal: the value is one encoded segment, never ../ or a new query; a bare .. is a 422', async () => {
      const t = await template({
        name: 'Order',
        mode: 'webhook',
        request_config: {
          url: `${rx.url}/orders/{{order_id}}`,
          headers: { Authorization: 'Bearer downstream-SECRET-123' },
        },
        placeholders: [{ name: 'order_id', required: true }],
      });
      const res = await trigger(t.trigger_url, {
        order_id: '../../admin/users/42/delete?x=',
        schedule: { wait: '1s' },
      });
      expect(res.status).toBe(201);
      const [got] = await rx.waitFor('/orders/..%2F..%2Fadmin%2Fusers%2F42%2Fdelete%3Fx%3D');
      expect(got!.url).toBe('/orders/..%2F..%2Fadmin%2Fusers%2F42%2Fdelete%3Fx%3D');
      expect(rx.requests.some((r) => r.path.startsWith('/admin'))).toBe(false);
      for (const dots of ['..', '.', '%2e%2E']) {
        const refused = await trigger(t.trigger_url, { order_id: dots });
        if (dots === '%2e%2E') {
          // A percent sign is itself encoded: the segment reads %252e%252E, not a dot segment.
          expect(refused.status).toBe(201);
          continue;
        }
        expect(refused.status).toBe(422);
        expect(Object.keys(refused.body.errors).join(' ')).toContain('url');
      }
    });

    it('query values: & = # in a value stay inside the one parameter', async () => {
      const t = await template({
        name: 'Query',
        mode: 'webhook',
        request_config: { url: `${rx.url}/lookup?id={{order_id}}&fixed=1` },
        placeholders: [{ name: 'order_id', required: true }],
      });
      expect((await trigger(t.trigger_url, { order_id: '1&admin=true#frag' })).status).toBe(201);
      const [got] = await rx.waitFor('/lookup');
      expect(got!.url).toBe('/lookup?id=1%26admin%3Dtrue%23frag&fixed=1');
    });

    it('host injection and {{path}} after an authority: refused at save time without allowed_origins', async () => {
      for (const url of [
        'https://{{tenant}}.hooks.example.com/orders?id={{order_id}}',
        `${rx.url}{{path}}`,
        '{{target}}',
      ]) {
        const res = await call('POST', '/v1/templates', {
          name: 'Host',
          mode: 'webhook',
          request_config: { url },
          placeholders: [{ name: 'tenant' }, { name: 'order_id' }, { name: 'path' }, { name: 'target' }],
        });
        expect(res.status, url).toBe(422);
        expect(res.body.errors['request_config.url'][0]).toContain('allowed_origins');
      }
    });

    it('an origin expression with allowed_origins: an allowed origin is sent, any other is a 422', async () => {
      const port = new URL(rx.url).port;
      const t = await template({
        name: 'Tenant',
        mode: 'webhook',
        request_config: { url: `http://{{host}}:${port}/tenant/{{id}}` },
        allowed_origins: [rx.url],
        placeholders: [
          { name: 'host', required: true },
          { name: 'id', default: 'x' },
        ],
      });
      expect((await trigger(t.trigger_url, { host: '127.0.0.1', id: 'a/b' })).status).toBe(201);
      const [got] = await rx.waitFor('/tenant/a%2Fb');
      expect(got!.url).toBe('/tenant/a%2Fb');
      for (const host of [
        'evil.example.net/x?',
        'localhost',
        'user@127.0.0.1',
        '127.0.0.1/tenant/../admin#',
      ]) {
        const res = await trigger(t.trigger_url, { host });
        expect(res.status, host).toBe(422);
        expect(Object.keys(res.body.errors).join(' ')).toContain('url');
      }
      const bad = await call('POST', '/v1/templates', {
        name: 'x',
        mode: 'webhook',
        request_config: { url: 'https://{{host}}/x' },
        allowed_origins: ['https://example.com/path'],
        placeholders: [{ name: 'host' }],
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toHaveProperty(['allowed_origins.0']);
    });

    it('a chain step responder cannot move the next step to another path', async () => {
      rx.on('/step0', {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"next":"../../admin?x=1"}',
      });
      const res = await call('POST', '/v1/chains', {
        name: 'responder',
        steps: [
          { name: 'ask', type: 'http_call', url: `${rx.url}/step0` },
          { name: 'use', type: 'http_call', url: `${rx.url}/items/{{steps.0.response.next}}` },
        ],
      });
      expect(res.status).toBe(201);
      const [got] = await rx.waitFor('/items/..%2F..%2Fadmin%3Fx%3D1');
      expect(got!.url).toBe('/items/..%2F..%2Fadmin%3Fx%3D1');
      const refused = await call('POST', '/v1/chains', {
        name: 'responder-origin',
        steps: [
          { name: 'ask', type: 'http_call', url: `${rx.url}/step0` },
          { name: 'use', type: 'http_call', url: 'https://{{steps.0.response.next}}/x' },
        ],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors['steps.1.url'][0]).toContain('allowed_origins');
    });

    it('a header value never adds a header or a line', async () => {
      const t = await template({
        name: 'Header',
        mode: 'webhook',
        request_config: { url: `${rx.url}/header`, headers: { 'X-Note': 'note {{note}}' } },
        placeholders: [{ name: 'note', required: true }],
      });
      const res = await trigger(t.trigger_url, { note: 'a\r\nX-Admin: true' });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).join(' ')).toContain('X-Note');
    });
  });
});
