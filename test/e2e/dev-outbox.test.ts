import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/*
 * Development without SMTP: the approval email goes to the outbox, and the link in it is reachable over the API
 * (GET /v1/outbox, and `sched outbox list --api`), so the whole loop runs from an installed CLI or the SDK.
 */
describe('the outbox of a development server over the API', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('dev_outbox');
    server = await startServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('needs the admin scope: a read or write key never gets a response link', async () => {
    for (const scopes of [['read'], ['read', 'write']]) {
      const made = await api(server, server.apiKey, 'POST', '/v1/api-keys', {
        name: scopes.join('+'),
        scopes,
      });
      expect(made.status).toBe(201);
      const res = await api(server, made.body.data.key, 'GET', '/v1/outbox');
      expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
      expect(JSON.stringify(res.body)).not.toContain('/r/');
    }
  });

  it('lists the kept email with its response link, which answers the approval; the CLI reads it too', async () => {
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Ship v2?', recipients: ['ada@example.com'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    const message = await eventually(async () => {
      const listed = await api(server, server.apiKey, 'GET', `/v1/outbox?action_id=${id}`);
      expect(listed.status).toBe(200);
      return listed.body.data[0];
    }, 30_000);
    expect(message).toMatchObject({
      action_id: id,
      channel: 'email',
      destination: 'ada@example.com',
      response_link: expect.stringMatching(/\/r\/[\w-]+$/),
    });
    expect(message.rendered).toContain('Ship v2?');

    const cli = await runCli(['outbox', 'list', '--api', '--action', id, '--json'], {
      SCHED_API_URL: server.url,
      SCHED_API_KEY: server.apiKey,
    });
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout).data[0]).toMatchObject({
      id: message.id,
      response_link: message.response_link,
    });

    const answered = await fetch(message.response_link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ decision: 'confirm', recipient_status: 'confirmed' });

    // Only the key's own account's messages are listed (this account has only this one).
    const other = await api(server, server.apiKey, 'GET', '/v1/outbox?limit=5');
    expect(other.body.data.every((m: { action_id: string }) => m.action_id === id)).toBe(true);
  });
});

describe('the outbox endpoint on a production server', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('prod_outbox');
    server = await startServer({
      databaseUrl: db.url,
      env: { NODE_ENV: 'production', SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('answers 404: operators read the outbox with the admin verb', async () => {
    const res = await api(server, server.apiKey, 'GET', '/v1/outbox');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
