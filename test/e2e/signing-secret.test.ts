import { createClient, verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// The account's signing secret (ecosystem review c081757, gap 3): what an action or chain created without a
// `webhook_secret` of its own is created with, so everything the account sends can be signed without naming a
// secret on every action, chain step and template.
describe('the account signing secret', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    db = await createTestDatabase('signing_secret');
    server = await startServer({ databaseUrl: db.url });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await server?.stop();
    await db?.drop();
  });

  /** Schedules a webhook to `path` in a second; answers the created action. */
  async function webhook(path: string, extra: Record<string, unknown> = {}) {
    const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '1s' },
      request: { url: `${rx.url}${path}`, body: { path } },
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; signed: boolean };
  }

  const delivered = async (path: string) => {
    const [req] = await rx.waitFor(path, 1, 20_000);
    return req!;
  };
  const verifies = (req: { headers: Record<string, unknown>; raw: Buffer }, secret: string | string[]) =>
    verifyWebhook({ secret, headers: req.headers as Record<string, string>, body: req.raw }).ok;

  it('signs what is created without a secret; rotation leaves what was created before on its own secret', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    expect(await sched.signingSecret.get()).toEqual({ secret: null, created_at: null });
    // Without one, nothing changes: unsigned, as before.
    expect((await webhook('/before')).signed).toBe(false);
    expect((await delivered('/before')).headers['webhook-signature']).toBeUndefined();

    const first = await sched.signingSecret.create();
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await sched.signingSecret.get()).toEqual(first);

    const plain = await webhook('/plain');
    expect(plain.signed).toBe(true);
    expect(verifies(await delivered('/plain'), first.secret!)).toBe(true);
    // An action's own secret wins.
    await webhook('/own', { webhook_secret: 'its-own-secret-0123456' });
    const own = await delivered('/own');
    expect(verifies(own, 'its-own-secret-0123456')).toBe(true);
    expect(verifies(own, first.secret!)).toBe(false);

    // Created now, due after the rotation: it keeps the secret it was created with.
    const early = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '3s' },
      request: { url: `${rx.url}/early`, body: {} },
    });
    expect(early.status).toBe(201);
    const second = await sched.signingSecret.create();
    expect(second.secret).not.toBe(first.secret);
    await webhook('/late');
    expect(verifies(await delivered('/late'), second.secret!)).toBe(true);
    const earlyReq = await delivered('/early');
    expect(verifies(earlyReq, first.secret!)).toBe(true);
    // A receiver verifying with both during the rotation accepts both.
    expect(verifies(earlyReq, [second.secret!, first.secret!])).toBe(true);

    await sched.signingSecret.delete();
    expect(await sched.signingSecret.get()).toEqual({ secret: null, created_at: null });
    expect((await webhook('/after')).signed).toBe(false);
    expect((await delivered('/after')).headers['webhook-signature']).toBeUndefined();
  });

  it("signs a chain's steps and callbacks created without a secret", async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const { secret } = await sched.signingSecret.create();
    const chain = await api(server, server.apiKey, 'POST', '/v1/chains', {
      name: 'signed by the account',
      callback_url: `${rx.url}/chain-events`,
      steps: [
        { name: 'call', type: 'http_call', url: `${rx.url}/chain-step` },
        { name: 'call again', type: 'http_call', url: `${rx.url}/chain-step-2` },
      ],
    });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    expect(verifies(await delivered('/chain-step'), secret!)).toBe(true);
    expect(verifies(await delivered('/chain-step-2'), secret!)).toBe(true);
    expect(verifies(await delivered('/chain-events'), secret!)).toBe(true);
    await sched.signingSecret.delete();
  });

  it('needs the admin scope; the audit log records each change without the secret; CLI', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const writer = await sched.keys.create({ name: 'writer', scopes: ['read', 'write'] });
    expect((await api(server, writer.key, 'GET', '/v1/signing-secret')).status).toBe(403);
    expect((await api(server, writer.key, 'POST', '/v1/signing-secret')).status).toBe(403);

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const made = await runCli(['signing-secret', 'create', '--json'], env);
    expect(made.code).toBe(0);
    const secret = JSON.parse(made.stdout).data.secret as string;
    const shown = await runCli(['signing-secret', 'show'], env);
    expect(shown.stdout).toContain(secret);
    expect((await runCli(['signing-secret', 'delete'], env)).stdout).toContain('signing secret removed');

    const events = await api(
      server,
      server.apiKey,
      'GET',
      '/v1/audit-events?action=signing_secret.*&limit=100',
    );
    expect(events.status).toBe(200);
    const actions = (events.body.data as { action: string }[]).map((e) => e.action);
    expect(actions.filter((a) => a === 'signing_secret.create').length).toBeGreaterThanOrEqual(4);
    expect(actions).toContain('signing_secret.delete');
    expect(JSON.stringify(events.body)).not.toContain(secret);
  });
});
