import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually } from '../support/receiver.js';
import { seedActions, sqlValue } from '../support/seed.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Bulk operations across process boundaries: the API only snapshots and enqueues; a worker does the work in
// batches under a lease; a worker killed with SIGKILL mid-run is replaced and no action is processed twice.
describe('bulk operations over separate api and worker processes', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apiServer: TestServer;
  let accountId: string;
  const workers: TestServer[] = [];
  const env = { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '100' };
  const call = (method: string, path: string, body?: unknown) =>
    api(apiServer, apiServer.apiKey, method, path, body);
  const operation = async (id: string) => (await call('GET', `/v1/bulk-operations/${id}`)).body.data;

  beforeAll(async () => {
    db = await createTestDatabase('bulk_crash');
    apiServer = await startServer({ databaseUrl: db.url, role: 'api', env });
    accountId = await sqlValue<string>(db.url, 'select id from accounts order by created_at limit 1');
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await apiServer?.stop();
    await db?.drop();
  });

  it('without a worker an operation waits, running; DELETE stops it and nothing is touched', async () => {
    await seedActions(db.url, {
      accountId,
      count: 50,
      status: 'scheduled',
      url: 'https://stop.example/hook',
      host: 'stop.example',
    });
    const run = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      filter: { destination_host: 'stop.example' },
      dry_run: false,
    });
    expect(run.status).toBe(202);
    expect(run.body.data).toMatchObject({ status: 'running', matched: 50, processed: 0 });
    const stopped = await call('DELETE', `/v1/bulk-operations/${run.body.data.id}`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.data).toMatchObject({
      status: 'stopped',
      processed: 0,
      finished_at: expect.any(String),
    });
    expect((await call('DELETE', `/v1/bulk-operations/${run.body.data.id}`)).status).toBe(409);
    expect(
      (await call('GET', '/v1/actions?destination_host=stop.example&status=scheduled')).body.meta.total,
    ).toBe(50);
  });

  it('a worker killed in the middle of a 10,000-action cancel: after a restart it completes, each cancelled once', async () => {
    await seedActions(db.url, {
      accountId,
      count: 10_000,
      status: 'scheduled',
      url: 'https://partner.example/hook',
      host: 'partner.example',
    });
    const dry = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      filter: { destination_host: 'partner.example', status: 'scheduled' },
    });
    expect(dry.body.data).toMatchObject({ matched: 10_000, eligible: 10_000 });
    const run = await call('POST', '/v1/bulk-operations', {
      operation: 'cancel',
      filter: { destination_host: 'partner.example', status: 'scheduled' },
      dry_run: false,
      note: 'partner gone',
    });
    expect(run.status).toBe(202);
    const id = run.body.data.id as string;
    expect(run.body.data.matched).toBe(10_000);

    workers.push(await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }));
    // Kill it once it is under way and well short of the end.
    const midway = await eventually(
      async () => {
        const op = await operation(id);
        return op.processed > 0 ? op : null;
      },
      60_000,
      20,
    );
    await workers.pop()!.kill();
    const atKill = await operation(id);
    expect(atKill.status).toBe('running');
    expect(atKill.processed).toBeGreaterThanOrEqual(midway.processed);
    expect(atKill.processed).toBeLessThan(10_000);
    // Counts and item marks were committed together with the cancels: they agree at every moment.
    expect(
      Number(
        await sqlValue(
          db.url,
          'select count(*) from bulk_operation_items where operation_id = $1 and outcome is not null',
          [id],
        ),
      ),
    ).toBe(atKill.processed);
    expect(
      Number(
        await sqlValue(
          db.url,
          "select count(*) from actions where destination_host = 'partner.example' and status = 'cancelled'",
        ),
      ),
    ).toBe(atKill.affected);

    workers.push(await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }));
    const done = await eventually(
      async () => {
        const op = await operation(id);
        return op.status === 'completed' ? op : null;
      },
      120_000,
      200,
    );
    expect(done).toMatchObject({
      matched: 10_000,
      processed: 10_000,
      affected: 10_000,
      skipped: 0,
      failed: 0,
    });
    expect(
      Number(
        await sqlValue(
          db.url,
          "select count(*) from actions where destination_host = 'partner.example' and status = 'cancelled'",
        ),
      ),
    ).toBe(10_000);
    expect(
      Number(
        await sqlValue(
          db.url,
          "select count(*) from bulk_operation_items where operation_id = $1 and outcome = 'affected'",
          [id],
        ),
      ),
    ).toBe(10_000);
    const sample = (await call('GET', '/v1/actions?destination_host=partner.example&per_page=1')).body
      .data[0];
    const detail = (await call('GET', `/v1/actions/${sample.id}`)).body.data;
    expect(detail.bulk_operations).toEqual([
      expect.objectContaining({
        bulk_operation_id: id,
        operation: 'cancel',
        outcome: 'affected',
        note: 'partner gone',
      }),
    ]);
  }, 240_000);
});
