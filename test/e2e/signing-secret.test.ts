import { createClient, verifyWebhook } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// The account's signing secret: every account is made with one, so what it sends is signed by default; what an
// action or chain without a `webhook_secret` of its own is signed with, re-keyed by a rotation, which can keep the
// replaced secret signing beside the new one for an overlap.
describe('the account signing secret', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    db = await createTestDatabase('signing_secret');
    // A 5-minute series runs every second.
    server = await startServer({ databaseUrl: db.url, env: { SCHED_TIME_SCALE: '300' } });
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

  it("signs a new account's first delivery: the first start's account and `sched accounts create`", async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const { secret } = await sched.signingSecret.get();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const first = await webhook('/first');
    expect(first.signed).toBe(true);
    expect(verifies(await delivered('/first'), secret!)).toBe(true);

    const made = await runCli(
      ['accounts', 'create', '--name', 'new', '--plan', 'business', '--json'],
      server.env,
    );
    expect(made.code, made.stderr).toBe(0);
    const other = createClient({ baseUrl: server.url, apiKey: JSON.parse(made.stdout).api_key as string });
    const its = (await other.signingSecret.get()).secret!;
    expect(its).toMatch(/^whsec_/);
    expect(its).not.toBe(secret);
    await other.actions.create({
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/other-first`, body: {} },
    });
    const req = await delivered('/other-first');
    expect(verifies(req, its)).toBe(true);
    expect(verifies(req, secret!)).toBe(false);
  });

  it('rotation re-keys live actions and series; both signatures during the overlap; 0s drops the old one', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const first = await sched.signingSecret.create({ overlap: '0s' });
    expect(first.previous_expires_at).toBeNull();
    expect(await sched.signingSecret.get()).toEqual(first);

    // An action's own secret wins, before and after rotations.
    await webhook('/own', { webhook_secret: 'its-own-secret-0123456' });
    const own = await delivered('/own');
    expect(verifies(own, 'its-own-secret-0123456')).toBe(true);
    expect(verifies(own, first.secret!)).toBe(false);

    // Made now, due after the rotation, and a series that goes on for ever: both follow the rotation.
    const early = await webhook('/early', { schedule: { wait: '4s' } });
    const series = await api(server, server.apiKey, 'POST', '/v1/actions', {
      schedule: { wait: '2s' },
      recurrence: { frequency: 5, unit: 'm', end_type: 'never' },
      request: { url: `${rx.url}/series`, body: {} },
    });
    expect(series.status, JSON.stringify(series.body)).toBe(201);
    await webhook('/own-late', { webhook_secret: 'its-own-secret-0123456', schedule: { wait: '4s' } });

    const second = await sched.signingSecret.create({ overlap: '1h' });
    expect(second.secret).not.toBe(first.secret);
    expect(Date.parse(second.previous_expires_at!)).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await sched.signingSecret.get()).toEqual(second);
    const earlyReq = await delivered('/early');
    // During the overlap the request carries one signature per secret: a receiver with either verifies.
    expect(String(earlyReq.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(earlyReq, second.secret!)).toBe(true);
    expect(verifies(earlyReq, first.secret!)).toBe(true);
    const ownLate = await delivered('/own-late');
    expect(String(ownLate.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(ownLate, 'its-own-secret-0123456')).toBe(true);

    // A leak: the third secret drops both older ones at once, for the series made two secrets ago too.
    const third = await sched.signingSecret.create({ overlap: '0s' });
    expect(third.previous_expires_at).toBeNull();
    const seen = (await rx.waitFor('/series', 1, 20_000)).length;
    const [later] = (await rx.waitFor('/series', seen + 2, 20_000)).slice(seen + 1);
    expect(verifies(later!, third.secret!)).toBe(true);
    expect(verifies(later!, second.secret!)).toBe(false);
    expect(verifies(later!, first.secret!)).toBe(false);
    await api(server, server.apiKey, 'DELETE', `/v1/actions/${series.body.data.id}`);
    expect(early.signed).toBe(true);

    // Refused overlaps change nothing.
    const bad = await api(server, server.apiKey, 'POST', '/v1/signing-secret', { overlap: '31d' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('overlap');
    expect((await sched.signingSecret.get()).secret).toBe(third.secret);

    // Removed: what the account sends without a secret of its own is unsigned, live actions included.
    const pending = await webhook('/pending', { schedule: { wait: '3s' } });
    await sched.signingSecret.delete();
    expect(await sched.signingSecret.get()).toEqual({
      secret: null,
      created_at: null,
      previous_expires_at: null,
    });
    expect((await webhook('/after')).signed).toBe(false);
    expect((await delivered('/after')).headers['webhook-signature']).toBeUndefined();
    expect(pending.signed).toBe(true);
    expect((await delivered('/pending')).headers['webhook-signature']).toBeUndefined();
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
