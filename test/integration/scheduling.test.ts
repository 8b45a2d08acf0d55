import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrateUp, openOrm } from '../../server/src/persistence/database.js';

import { QUEUES, startJobQueue, type JobQueue } from '../../server/src/jobs/queue.js';
import { ANNOUNCE_WINDOW_MS } from '../../server/src/domain/schedule/window.js';
import { createActionScheduler } from '../../server/src/jobs/scheduler.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawQuery } from '../support/in-process.js';

// The persistence side of scheduling, on a real PostgreSQL and a real pg-boss: an attempt's job is written once,
// when its time is within the look-ahead window, whether it starts there or comes near later; and prepared
// statements survive another process's migration.
describe('scheduling jobs in the look-ahead window', () => {
  let database: TestDatabase;
  let orm: Awaited<ReturnType<typeof openOrm>>;
  let store: Database;
  let queue: JobQueue;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase('scheduling');
    orm = await openOrm({ databaseUrl: database.url });
    await migrateUp(orm);
    store = new Database(orm);
    const logger = { error: () => undefined } as unknown as Parameters<typeof startJobQueue>[0]['logger'];
    queue = await startJobQueue({ databaseUrl: database.url, role: 'api', logger });
    accountId = randomUUID();
    await rawQuery(
      store.sql,
      `insert into accounts (id, name, plan, rate_limit_factor, created_at, updated_at)
       values ($1, 'scheduling', 'business', 1, now(), now())`,
      [accountId],
    );
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, timeoutMs: 1000 });
    await orm?.close(true);
    await database?.drop();
  });

  const scheduler = () => createActionScheduler(queue, () => new Date());

  async function newAction(dueAt: Date, status = 'scheduled'): Promise<string> {
    const id = randomUUID();
    await store.transaction(async (tx) => {
      await rawQuery(
        tx,
        `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at,
           max_attempts, retry_strategy, request, created_at, updated_at)
         values ($1, $2, 'a', 'webhook', $4, 'UTC', $3, $3, 3, 'exponential', '{}'::jsonb, now(), now())`,
        [id, accountId, dueAt, status],
      );
      await scheduler().schedule(tx, id, dueAt);
    });
    return id;
  }

  async function jobsOf(id: string): Promise<Date[]> {
    const rows = await rawQuery<{ start_after: Date }>(
      store.sql,
      `select start_after from pgboss.job where name = $1 and data ->> 'actionId' = $2 order by start_after`,
      [QUEUES.actionDue, id],
    );
    return rows.map((r) => new Date(r.start_after));
  }

  async function rowOf(id: string) {
    const [row] = await rawQuery<{ status: string; job_due_at: Date | null; next_attempt_at: Date }>(
      store.sql,
      'select status, job_due_at, next_attempt_at from actions where id = $1',
      [id],
    );
    return row!;
  }

  it('an attempt due within the window gets its job at once; a later one gets none yet', async () => {
    const soon = new Date(Date.now() + 10_000);
    const later = new Date(Date.now() + 3_600_000);
    const near = await newAction(soon);
    const far = await newAction(later);

    expect((await jobsOf(near)).map((d) => d.getTime())).toEqual([soon.getTime()]);
    expect(new Date((await rowOf(near)).job_due_at!).getTime()).toBe(soon.getTime());
    expect(await jobsOf(far)).toEqual([]);
    expect((await rowOf(far)).job_due_at).toBeNull();
  });

  it('the scan writes the job as the attempt comes near, once, and resolves the action', async () => {
    const far = await newAction(new Date(Date.now() + 3_600_000));
    const entered = await scheduler().enqueueEntering(store);
    expect(entered.map((e) => e.id)).not.toContain(far);

    // Time passes: the attempt is now 30 s away.
    const due = new Date(Date.now() + 30_000);
    await rawQuery(store.sql, 'update actions set next_attempt_at = $2 where id = $1', [far, due]);
    const first = await scheduler().enqueueEntering(store);
    expect(first).toContainEqual(expect.objectContaining({ id: far, dueMs: due.getTime() }));
    expect((await jobsOf(far)).map((d) => d.getTime())).toEqual([due.getTime()]);
    expect((await rowOf(far)).status).toBe('resolved');

    await scheduler().enqueueEntering(store);
    expect(await jobsOf(far)).toHaveLength(1);
  });

  it('a retry moved to a new time gets a job for that time when it comes near', async () => {
    const first = new Date(Date.now() + 5_000);
    const id = await newAction(first);
    await scheduler().enqueueEntering(store);
    expect(await jobsOf(id)).toHaveLength(1);

    // The attempt failed and the retry policy chose a time 45 s on; its job waits for the scan.
    const retryAt = new Date(Date.now() + 45_000);
    await rawQuery(store.sql, `update actions set status = 'resolved', next_attempt_at = $2 where id = $1`, [
      id,
      retryAt,
    ]);
    const entered = await scheduler().enqueueEntering(store);
    expect(entered).toContainEqual(expect.objectContaining({ id, dueMs: retryAt.getTime() }));
    expect((await jobsOf(id)).map((d) => d.getTime())).toEqual([first.getTime(), retryAt.getTime()]);
  });

  it('a row locked by another transaction is left for the next scan, not waited for', async () => {
    const id = await newAction(new Date(Date.now() + 3_600_000));
    await rawQuery(store.sql, 'update actions set next_attempt_at = $2 where id = $1', [
      id,
      new Date(Date.now() + ANNOUNCE_WINDOW_MS / 2),
    ]);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('select 1 from actions where id = $1 for update', [id]);
      const entered = await scheduler().enqueueEntering(store);
      expect(entered.map((e) => e.id)).not.toContain(id);
      await client.query('rollback');
    } finally {
      await client.end();
    }
    const entered = await scheduler().enqueueEntering(store);
    expect(entered.map((e) => e.id)).toContain(id);
    expect(await jobsOf(id)).toHaveLength(1);
  });

  it('cancelled and executed actions get no job', async () => {
    const id = await newAction(new Date(Date.now() + 3_600_000));
    await rawQuery(
      store.sql,
      `update actions set status = 'cancelled', next_attempt_at = now() + interval '10 seconds' where id = $1`,
      [id],
    );
    await scheduler().enqueueEntering(store);
    expect(await jobsOf(id)).toEqual([]);
  });

  it('a prepared statement still answers after another process changed the table it returns', async () => {
    // One connection, so the statement prepared by the first read is the one the later reads meet.
    const single = new Database(await openOrm({ databaseUrl: database.url, poolSize: 1 }));
    try {
      await rawQuery(single.sql, 'create table prepared_probe (id int primary key)');
      await rawQuery(single.sql, 'insert into prepared_probe values (1)');
      // Statements with parameters are the ones sent as named prepared statements.
      const read = () => rawQuery(single.sql, 'select * from prepared_probe where id = $1', [1]);
      const readInTransaction = () =>
        single.transaction((tx) => rawQuery(tx, 'select * from prepared_probe where id = $1', [1]));
      expect(await read()).toEqual([{ id: 1 }]);
      expect(await readInTransaction()).toEqual([{ id: 1 }]);
      // A migration from another process: the prepared `select *` now returns a different row type.
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      await other.query('alter table prepared_probe add column label text');
      await other.end();
      // The error has aborted that transaction: the caller sees it once; the connection stays usable after.
      await expect(readInTransaction()).rejects.toMatchObject({ code: '0A000' });
      for (let i = 0; i < 3; i++) {
        expect(await readInTransaction()).toEqual([{ id: 1, label: null }]);
        expect(await read()).toEqual([{ id: 1, label: null }]);
      }
    } finally {
      await single.close();
    }
  });
});
