import { createClient, SchedApiError } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// API keys through the API: the admin scope, a secret shown once, revocation at once, rotation with a grace period.
describe('API keys through the API', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;

  beforeAll(async () => {
    db = await createTestDatabase('api_keys');
    server = await startServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("the default account's first key has admin; a key without it is refused with 403 forbidden", async () => {
    const owner = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const [first] = await owner.keys.list();
    expect(first!.scopes).toEqual(['read', 'write', 'admin']);
    expect(first!.prefix).toBe(server.apiKey.slice(0, first!.prefix.length));
    expect(first).not.toHaveProperty('key');

    const plain = await owner.keys.create({ name: 'ci' });
    expect(plain.scopes).toEqual(['read', 'write']);
    expect(plain.key).toMatch(/^sk_sched_/);
    const ci = createClient({ baseUrl: server.url, apiKey: plain.key });
    await ci.contacts.list();
    const refused = await ci.keys.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SchedApiError);
    expect(refused).toMatchObject({ status: 403, code: 'forbidden' });
    // The list never shows a secret, and shows the new key's prefix and scopes.
    const listed = await owner.keys.list();
    expect(Object.keys(listed.find((k) => k.id === plain.id)!).sort()).toEqual(
      ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes'].sort(),
    );
    expect(listed.find((k) => k.id === plain.id)).toMatchObject({
      id: plain.id,
      name: 'ci',
      prefix: plain.key.slice(0, plain.prefix.length),
      scopes: ['read', 'write'],
      created_at: plain.created_at,
      expires_at: null,
    });
    // Its use above is recorded (after the answer, so read until it shows).
    await eventually(async () => {
      const seen = (await owner.keys.list()).find((k) => k.id === plain.id);
      return seen?.last_used_at ? seen : null;
    });
  });

  it('revokes a key at once; another account cannot see it; bad input is a 422', async () => {
    const owner = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const k = await owner.keys.create({ name: 'temp', scopes: ['read'] });
    expect((await api(server, k.key, 'GET', '/v1/contacts')).status).toBe(200);
    expect(
      (await api(server, k.key, 'POST', '/v1/contacts', { name: 'x', email: 'x@example.com' })).body.code,
    ).toBe('forbidden');
    await owner.keys.revoke(k.id);
    const after = await api(server, k.key, 'GET', '/v1/contacts');
    expect([after.status, after.body.code]).toEqual([401, 'unauthorized']);
    await expect(owner.keys.revoke(k.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });

    const bad = await api(server, server.apiKey, 'POST', '/v1/api-keys', {
      name: '',
      scopes: ['root'],
      expires_at: '2001-01-01T00:00:00Z',
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['name', 'scopes.0']);
    const past = await api(server, server.apiKey, 'POST', '/v1/api-keys', {
      name: 'old',
      expires_at: '2001-01-01T00:00:00Z',
    });
    expect(past.body.errors).toEqual({ expires_at: ['must be in the future'] });
  });

  it('an expiring key stops working at its time; rotation keeps the old secret for the grace period', async () => {
    const owner = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const soon = await owner.keys.create({
      name: 'short',
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await api(server, soon.key, 'GET', '/v1/contacts')).status).toBe(200);

    const old = await owner.keys.create({ name: 'deploy', scopes: ['read', 'write'] });
    const rotated = await owner.keys.rotate(old.id, { grace_period: '2s' });
    expect(rotated.data).toMatchObject({ name: 'deploy', scopes: ['read', 'write'], expires_at: null });
    expect(rotated.data.key).not.toBe(old.key);
    expect(rotated.meta.previous_key_id).toBe(old.id);
    const graceEnd = Date.parse(rotated.meta.previous_key_expires_at);
    expect(graceEnd - Date.now()).toBeGreaterThan(0);
    expect(graceEnd - Date.now()).toBeLessThanOrEqual(2000);
    // Both work during the grace period.
    expect((await api(server, old.key, 'GET', '/v1/contacts')).status).toBe(200);
    expect((await api(server, rotated.data.key, 'GET', '/v1/contacts')).status).toBe(200);
    // Refused once the grace period (and the other key's expiry, before it) has passed.
    await eventually(async () => (await api(server, old.key, 'GET', '/v1/contacts')).status === 401);
    expect(Date.now()).toBeGreaterThanOrEqual(graceEnd);
    expect((await api(server, soon.key, 'GET', '/v1/contacts')).status).toBe(401);
    expect((await api(server, rotated.data.key, 'GET', '/v1/contacts')).status).toBe(200);
    // Expired keys leave the list; a rotated key cannot be rotated again once expired.
    const ids = (await owner.keys.list()).map((k) => k.id);
    expect(ids).toContain(rotated.data.id);
    expect(ids).not.toContain(old.id);
    expect(ids).not.toContain(soon.id);
    await expect(owner.keys.rotate(old.id)).rejects.toMatchObject({ status: 404 });
    // grace 0s ends the old secret at once.
    const now = await owner.keys.rotate(rotated.data.id, { grace_period: '0s' });
    expect((await api(server, rotated.data.key, 'GET', '/v1/contacts')).status).toBe(401);
    expect((await api(server, now.data.key, 'GET', '/v1/contacts')).status).toBe(200);
  });

  it('CLI: sched keys create, list, rotate and revoke over the API', async () => {
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
    const created = await runCli(['keys', 'create', '--name', 'from-cli', '--scopes', 'read', '--json'], env);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout).data as { id: string; key: string; scopes: string[] };
    expect(key.scopes).toEqual(['read']);
    const table = await runCli(['keys', 'list'], env);
    expect(table.stdout).toMatch(/ID\s+NAME\s+PREFIX\s+SCOPES\s+LAST_USED_AT\s+EXPIRES_AT/);
    expect(table.stdout).toContain('from-cli');
    const rotated = await runCli(['keys', 'rotate', key.id, '--grace-period', '1h'], env);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/sk_sched_/);
    expect(rotated.stdout).toContain('keeps working until');
    const revoked = await runCli(['keys', 'revoke', key.id], env);
    expect(revoked.code).toBe(0);
    expect((await api(server, key.key, 'GET', '/v1/contacts')).status).toBe(401);
    const again = await runCli(['keys', 'revoke', key.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('error [not_found]');
  });
});
