import { createClient, SchedApiError } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

describe('the TypeScript SDK and the sched binary', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase('sdkcli');
    server = await startServer({ databaseUrl: db.url });
    env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('SDK: contacts lifecycle with typed results', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const c = await sched.contacts.create({ name: 'Grace', email: 'grace@example.com' });
    expect(c.id).toMatch(/[0-9a-f-]{36}/);
    expect((await sched.contacts.get(c.id)).email).toBe('grace@example.com');
    expect((await sched.contacts.update(c.id, { phone: '+442071234567' })).phone).toBe('+442071234567');
    expect((await sched.contacts.list()).map((x) => x.id)).toContain(c.id);
    await sched.contacts.delete(c.id);
    await expect(sched.contacts.get(c.id)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'contact not found',
    });
  });

  it('SDK: errors carry status, message and field errors', async () => {
    const sched = createClient({ baseUrl: `${server.url}/v1`, apiKey: server.apiKey });
    const err = await sched.contacts.create({ name: 'X', email: 'not-an-email' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchedApiError);
    expect((err as SchedApiError).status).toBe(422);
    expect((err as SchedApiError).errors.email).toBeDefined();
    const bad = createClient({ baseUrl: server.url, apiKey: 'sk_sched_wrong' });
    await expect(bad.contacts.list()).rejects.toMatchObject({ status: 401 });
  });

  it('CLI: contacts create, list as a table and as JSON, get, update, delete', async () => {
    const created = await runCli(
      ['contacts', 'create', '--name', 'Linus', '--phone', '+15550001111', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).data.id as string;
    const table = await runCli(['contacts', 'list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ID\s+NAME\s+EMAIL\s+PHONE/);
    expect(table.stdout).toContain('Linus');
    const json = JSON.parse((await runCli(['contacts', 'list', '--json'], env)).stdout);
    expect(json.data.some((c: { id: string }) => c.id === id)).toBe(true);
    const updated = await runCli(['contacts', 'update', id, '--name', 'Linus T', '--json'], env);
    expect(JSON.parse(updated.stdout).data.name).toBe('Linus T');
    expect((await runCli(['contacts', 'delete', id], env)).code).toBe(0);
    const gone = await runCli(['contacts', 'get', id], env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('contact not found');
  });

  it('CLI: flags override the environment, and failures exit non-zero with the server message', async () => {
    const wrong = await runCli(['contacts', 'list', '--api-key', 'sk_sched_bad'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid API key');
    const invalid = await runCli(['contacts', 'create', '--name', 'Y', '--phone', '12'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('phone');
    const usage = await runCli(['contacts', 'create', '--name', 'Z'], env);
    expect(usage.code).toBe(2);
    const unknown = await runCli(['frobnicate'], env);
    expect(unknown.code).toBe(2);
  });

  it('CLI admin verbs: accounts create prints {account, api_key} and the key works', async () => {
    const res = await runCli(['accounts', 'create', '--name', 'Acme', '--plan', 'business', '--json'], env);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out).sort()).toEqual(['account', 'api_key']);
    expect(Object.keys(out.account).sort()).toEqual(['id', 'name', 'plan']);
    const sched = createClient({ baseUrl: server.url, apiKey: out.api_key });
    expect(await sched.contacts.list()).toEqual([]);
    const badPlan = await runCli(['accounts', 'create', '--name', 'X', '--plan', 'gold'], env);
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('--plan');
  });
});
