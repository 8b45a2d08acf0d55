import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, SchedApiError } from '@sched/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

/** `POST /v1/actions/batch`: all items or none, each checked and counted as a single create is. */
describe('batch creates', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let receiver: Receiver;
  /** Accounts made per test, so each one's totals, quota and rate limits are its own. */
  const account = async (name: string, args: string[] = []) => {
    const out = await runCli(['accounts', 'create', '--name', name, ...args, '--json'], server.env);
    const created = JSON.parse(out.stdout);
    return { key: created.api_key as string, id: created.account.id as string };
  };
  const total = async (key: string) => (await api(server, key, 'GET', '/v1/actions')).body.meta.total;
  const later = (path: string) => ({ schedule: { wait: '7d' }, request: { url: `${receiver.url}${path}` } });

  beforeAll(async () => {
    db = await createTestDatabase('actions_batch');
    [server, receiver] = await Promise.all([startServer({ databaseUrl: db.url }), startReceiver()]);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
  });

  it('creates a batch of 3 in order and delivers each to the receiver', async () => {
    const { key } = await account('batch-three', ['--rate-limit-factor', '10']);
    const res = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [0, 1, 2].map((i) => ({
        name: `item ${i}`,
        schedule: { wait: '1s' },
        request: { url: `${receiver.url}/batch/${i}`, body: { i } },
      })),
    });
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({ created: 3, skipped: 0 });
    expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['item 0', 'item 1', 'item 2']);
    expect(res.body.data.every((a: { meta?: unknown }) => a.meta === undefined)).toBe(true);
    await eventually(async () =>
      [0, 1, 2].every((i) => receiver.requests.some((r) => r.path === `/batch/${i}`)),
    );
    for (const i of [0, 1, 2]) {
      expect(receiver.requests.find((r) => r.path === `/batch/${i}`)!.json).toEqual({ i });
      await eventually(
        async () =>
          (await api(server, key, 'GET', `/v1/actions/${res.body.data[i].id}`)).body.data.status ===
          'executed',
      );
    }
    expect(await total(key)).toBe(3);
  });

  it('takes batches adding the same new origins in opposite orders at once, keyed items included', async () => {
    const { key } = await account('batch-origins', ['--plan', 'business', '--rate-limit-factor', '10']);
    const origins: string[] = [];
    for (let round = 0; round < 40; round++) {
      const urls = [1, 2, 3].map((n) => `http://127.0.0.1:${30_000 + round * 10 + n}/hook`);
      origins.push(...urls.map((u) => new URL(u).origin));
      const batch = (order: string[], tag: string) =>
        api(server, key, 'POST', '/v1/actions/batch', {
          actions: order.map((url, i) => ({
            schedule: { wait: '7d' },
            request: { url },
            // Keyed items are written one by one, each in the batch's transaction.
            ...(i < 2 ? { idempotency_key: `${tag}-${round}-${i}` } : {}),
          })),
        });
      const answers = await Promise.all([batch(urls, 'a'), batch([...urls].reverse(), 'b')]);
      // Before each batch registered its origins at once, one in a few rounds failed here: deadlock detected.
      expect(
        answers.map((r) => r.status),
        JSON.stringify(answers.map((r) => r.body.message)),
      ).toEqual([201, 201]);
    }
    const listed = [];
    for (const page of [1, 2])
      listed.push(...(await api(server, key, 'GET', `/v1/destinations?page=${page}`)).body.data);
    expect(listed.map((d: { origin: string }) => d.origin)).toEqual([...origins].sort());
  });

  it('refuses a batch with one bad item with 422 naming actions.1.request.url, and creates nothing', async () => {
    const { key } = await account('batch-bad');
    const res = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [later('/ok/0'), { schedule: { wait: '7d' }, request: { url: 'not a url' } }, later('/ok/2')],
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['actions.1.request.url']);
    // A rule the service checks (not the schema): the same item path.
    const past = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [later('/ok/0'), later('/ok/1'), { ...later('/ok/2'), scheduled_for: '2000-01-01T00:00:00Z' }],
    });
    expect(past.status).toBe(422);
    expect(Object.keys(past.body.errors)[0]).toMatch(/^actions\.2\./);
    expect(await total(key)).toBe(0);
  });

  it('reports an idempotency-key skip in its place, within the batch and against an earlier action', async () => {
    const { key } = await account('batch-idem');
    const earlier = await api(server, key, 'POST', '/v1/actions', {
      ...later('/idem'),
      idempotency_key: 'k-1',
    });
    expect(earlier.status).toBe(201);
    const res = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [
        later('/new'),
        { ...later('/idem'), idempotency_key: 'k-1' },
        { ...later('/idem2'), idempotency_key: 'k-2' },
        { ...later('/idem2'), idempotency_key: 'k-2' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({ created: 2, skipped: 2 });
    const [fresh, skipped, second, repeat] = res.body.data;
    expect(fresh.meta).toBeUndefined();
    expect(skipped.id).toBe(earlier.body.data.id);
    expect(skipped.meta).toEqual({
      skipped: true,
      reason: 'idempotency_key_exists',
      existing_status: 'scheduled',
    });
    expect(second.meta).toBeUndefined();
    expect(repeat.id).toBe(second.id);
    expect(repeat.meta).toMatchObject({ skipped: true, reason: 'idempotency_key_exists' });
    expect(await total(key)).toBe(3);
  });

  it('counts each item against the monthly quota: a free account near its limit is refused whole', async () => {
    const { key, id } = await account('batch-free', ['--plan', 'free']);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(
        `insert into usage_counters (account_id, period, metric, used) values ($1, $2, 'actions', 98)`,
        [id, new Date().toISOString().slice(0, 7)],
      );
    } finally {
      await client.end();
    }
    const res = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [later('/q/0'), later('/q/1'), later('/q/2')],
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/free plan allows 100 actions a month/);
    expect(await total(key)).toBe(0);
    expect((await api(server, key, 'GET', '/v1/quota')).body.data.actions.used).toBe(98);
    // Two still fit.
    const fits = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: [later('/q/0'), later('/q/1')],
    });
    expect(fits.status).toBe(201);
    expect((await api(server, key, 'GET', '/v1/quota')).body.data.actions.used).toBe(100);
  });

  it('refuses 1,001 items with 422 and counts each item against the create rate limit', async () => {
    const { key } = await account('batch-limits');
    const over = await api(server, key, 'POST', '/v1/actions/batch', {
      actions: Array.from({ length: 1001 }, (_, i) => later(`/many/${i}`)),
    });
    expect(over.status).toBe(422);
    expect(Object.keys(over.body.errors)).toContain('actions');
    expect(await total(key)).toBe(0);
    // The create limit is 100 an hour at factor 1: 60 items pass, the next 60 do not, and nothing of them is made.
    const sixty = () => ({ actions: Array.from({ length: 60 }, (_, i) => later(`/rate/${i}`)) });
    expect((await api(server, key, 'POST', '/v1/actions/batch', sixty())).status).toBe(201);
    const limited = await api(server, key, 'POST', '/v1/actions/batch', sixty());
    expect(limited.status).toBe(429);
    expect(await total(key)).toBe(60);
  });

  it('SDK createMany and the CLI --from-file create a batch', async () => {
    const { key } = await account('batch-clients', ['--rate-limit-factor', '10']);
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const made = await sched.actions.createMany([
      later('/sdk/0'),
      { ...later('/sdk/1'), idempotency_key: 'sdk' },
    ]);
    expect(made.meta).toEqual({ created: 2, skipped: 0 });
    const again = await sched.actions.createMany([{ ...later('/sdk/1'), idempotency_key: 'sdk' }]);
    expect(again.data[0]!.meta?.reason).toBe('idempotency_key_exists');
    const bad = await sched.actions.createMany([later('/sdk/2'), { request: { url: 'x' } }]).catch((e) => e);
    expect(bad).toBeInstanceOf(SchedApiError);
    expect((bad as SchedApiError).status).toBe(422);

    const file = join(tmpdir(), `sched-batch-${process.pid}.ndjson`);
    writeFileSync(file, `${JSON.stringify(later('/cli/0'))}\n\n${JSON.stringify(later('/cli/1'))}\n`);
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const out = await runCli(['actions', 'create', '--from-file', file, '--json'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).meta).toEqual({ created: 2, skipped: 0 });
    const text = await runCli(['actions', 'create', '--from-file', file], env);
    expect(text.stdout).toMatch(/created 2, skipped 0/);
    expect(await total(key)).toBe(6);
  }, 120_000);
});
