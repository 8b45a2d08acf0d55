import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { seedActions, sqlValue } from '../support/seed.js';
import { api, startServer, type TestServer } from '../support/server.js';

// The failed inbox's total is kept by the database (row triggers on `actions`, folded by the worker): after each way
// an action enters or leaves the inbox through the service (a final failure of a real delivery, a retry, a replay, a
// bulk retry, a bulk cancel, a chain's step failing), `GET /v1/actions?status=failed` answers what a count of the rows
// answers, before and after the fold.
describe('the failed inbox total, kept by the database, through the service', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let rx: Receiver;
  let accountId: string;
  /** What `/flaky` answers now. */
  let flaky = 500;
  const call = (method: string, path: string, body?: unknown) =>
    api(server, server.apiKey, method, path, body);
  const status = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data.status as string;
  const settled = (ids: string[], want: string) =>
    eventually(async () => {
      for (const id of ids) if ((await status(id)) !== want) return null;
      return true;
    }, 30_000);

  /** The inbox's `meta.total` (the kept total) and the same filter counted (a second filter that matches all). */
  async function totals() {
    const inbox = await call('GET', '/v1/actions?status=failed&per_page=100');
    expect(inbox.status).toBe(200);
    const counted = await call(
      'GET',
      '/v1/actions?status=failed&created_after=2000-01-01T00:00:00Z&per_page=1',
    );
    const rows = await sqlValue<number>(
      db.url,
      `select count(*)::int from actions where account_id = $1 and status = 'failed' and chain_id is null`,
      [accountId],
    );
    expect(inbox.body.meta.total).toBe(counted.body.meta.total);
    expect(inbox.body.meta.total).toBe(rows);
    expect(inbox.body.data).toHaveLength(Math.min(rows, 100));
    return rows;
  }
  const unfolded = () =>
    sqlValue<number>(db.url, 'select count(*)::int from failed_inbox_deltas where account_id = $1', [
      accountId,
    ]);

  const create = async (name: string, path: string) => {
    const res = await call('POST', '/v1/actions', {
      name,
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url: `${rx.url}${path}` },
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    db = await createTestDatabase('failed_inbox_e2e');
    rx = await startReceiver();
    rx.on('/flaky', () => ({ status: flaky }));
    rx.on('/down', { status: 500 });
    server = await startServer({
      databaseUrl: db.url,
      env: { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' },
    });
    accountId = await sqlValue<string>(db.url, 'select id from accounts order by created_at limit 1');
    // Failures on purpose: the loopback host's circuit would otherwise hold what follows.
    const circuit = await call('PUT', '/v1/destinations/127.0.0.1', { circuit: { enabled: false } });
    expect(circuit.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
    await db?.drop();
  });

  it('counts final failures, retries, replays, bulk retries and cancels, and not a chain step', async () => {
    // Final failures through the real delivery path: a 500 with no retry left.
    const failed: string[] = [];
    for (let i = 0; i < 6; i++) failed.push(await create(`inbox ${i}`, '/flaky'));
    await settled(failed, 'failed');
    expect(await totals()).toBe(6);

    // A retry takes one out; it is delivered this time.
    flaky = 200;
    expect((await call('POST', `/v1/actions/${failed[0]}/retry`)).status).toBe(200);
    await settled([failed[0]!], 'executed');
    expect(await totals()).toBe(5);

    // A replay is a new action: the original stays in the inbox, and the replay fails into it too.
    flaky = 500;
    const replay = await call('POST', `/v1/actions/${failed[1]}/replay`, {});
    expect(replay.status).toBe(201);
    await settled([replay.body.data.id], 'failed');
    expect(await totals()).toBe(6);

    // A bulk retry of three of them, delivered this time; a bulk cancel finds no failed action it may cancel.
    flaky = 200;
    const retried = failed.slice(2, 5);
    const bulk = await call('POST', '/v1/bulk-operations', {
      operation: 'retry',
      ids: retried,
      dry_run: false,
    });
    expect(bulk.status).toBe(202);
    await settled(retried, 'executed');
    expect(await totals()).toBe(3);
    const pending = await call('POST', '/v1/actions', {
      name: 'to cancel',
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/flaky` },
    });
    const cancel = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      ids: [pending.body.data.id, failed[5]],
      dry_run: false,
    });
    expect(cancel.status).toBe(202);
    await settled([pending.body.data.id], 'cancelled');
    expect(await status(failed[5]!)).toBe('failed');
    expect(await totals()).toBe(3);

    // A chain's step failing is not in the inbox (lists never show steps).
    const chain = await call('POST', '/v1/chains', {
      name: 'failing chain',
      steps: [
        { name: 'down', type: 'webhook', url: `${rx.url}/down`, max_attempts: 1 },
        { name: 'after', type: 'delay', delay: '1s' },
      ],
    });
    expect(chain.body).toMatchObject({ data: { status: 'running' } });
    await eventually(
      async () => (await call('GET', `/v1/chains/${chain.body.data.id}`)).body.data.status === 'failed',
      30_000,
    );
    expect(
      await sqlValue<number>(
        db.url,
        `select count(*)::int from actions where chain_id = $1 and status = 'failed'`,
        [chain.body.data.id],
      ),
    ).toBe(1);
    expect(await totals()).toBe(3);

    // The worker folds the deltas into the account's base; the total stays the count.
    await eventually(async () => (await unfolded()) === 0, 30_000);
    expect(
      await sqlValue<number>(db.url, 'select total::int from failed_inbox_counts where account_id = $1', [
        accountId,
      ]),
    ).toBe(3);
    expect(await totals()).toBe(3);

    // The route answers the kept total, not a count: a base moved by hand shows in it (and is moved back).
    const shift = (n: number) =>
      sqlValue(db.url, 'update failed_inbox_counts set total = total + $2 where account_id = $1', [
        accountId,
        n,
      ]);
    await shift(1000);
    try {
      expect((await call('GET', '/v1/actions?status=failed&per_page=100')).body.meta.total).toBe(1003);
    } finally {
      await shift(-1000);
    }
    expect(await totals()).toBe(3);
  }, 120_000);

  it('seeded rows count the moment they commit, and a filter beside the status still counts', async () => {
    const before = await totals();
    await seedActions(db.url, {
      accountId,
      count: 250,
      status: 'failed',
      url: `${rx.url}/seeded`,
      host: '127.0.0.1',
    });
    expect(await totals()).toBe(before + 250);
    const narrowed = await call('GET', '/v1/actions?status=failed&search=seeded&per_page=1');
    expect(narrowed.body.meta.total).toBe(250);
  });
});
