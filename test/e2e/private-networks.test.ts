import { verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// A production server that names the networks of its internal services (SCHED_ALLOWED_PRIVATE_NETWORKS) delivers to
// them, plain http included, and keeps refusing every other non-public destination: the receiver on 127.0.0.1 stands
// for an internal service, 127.0.0.2 (also loopback, not named) for one the operator did not allow.
describe('SCHED_ALLOWED_PRIVATE_NETWORKS in production', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    db = await createTestDatabase('private_networks');
    rx = await startReceiver();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        NODE_ENV: 'production',
        SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false',
        SCHED_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1, fd00:1::/64',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('delivers a signed webhook and its callback to an allowed internal address over plain http', async () => {
    const secret = 'whsec-internal-service';
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      webhook_secret: secret,
      request: { url: `${rx.url}/internal`, method: 'POST', body: { invoice: 42 } },
      callback_url: `${rx.url}/callback`,
    });
    expect(created.status).toBe(201);
    const [delivered] = await rx.waitFor('/internal');
    expect(delivered!.json).toEqual({ invoice: 42 });
    expect(verifyWebhook({ secret, headers: delivered!.headers, body: delivered!.body })).toMatchObject({
      ok: true,
      id: `${created.body.data.id}.0`,
    });
    const [callback] = await rx.waitFor('/callback');
    expect(callback!.json).toMatchObject({
      event: 'action.executed',
      action_id: created.body.data.id,
      payload: { status: 'executed', response_code: 200 },
    });
    await eventually(
      async () =>
        (await api(server, server.apiKey, 'GET', `/v1/actions/${created.body.data.id}`)).body.data.status ===
        'executed',
    );
  });

  it.each([
    ['http://127.0.0.2:9/hook', 'must not target a private, loopback, link-local or reserved address'],
    ['https://10.0.0.5/hook', 'must not target a private, loopback, link-local or reserved address'],
    [
      'https://169.254.169.254/latest/meta-data',
      'must not target a private, loopback, link-local or reserved address',
    ],
    ['http://[fd00:2::1]/hook', 'must not target a private, loopback, link-local or reserved address'],
    ['http://93.184.216.34/hook', 'must use https outside the private networks this server allows'],
  ])('refuses %s at create with 422 on request.url, creating nothing', async (url, message) => {
    const before = (await api(server, server.apiKey, 'GET', '/v1/actions')).body.meta.total;
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors['request.url']).toEqual([message]);
    expect((await api(server, server.apiKey, 'GET', '/v1/actions')).body.meta.total).toBe(before);
  });

  it('accepts an allowed IPv6 network at create', async () => {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '30d' },
      request: { url: 'http://[fd00:1::7]:8080/hook' },
    });
    expect(res.status).toBe(201);
  });
});
