import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES, type JobQueue, startJobQueue } from '../../server/src/jobs/queue.js';
import { jobSqlOn } from '../../server/src/persistence/database.js';
import { consumeUsage, usageOf } from '../../server/src/persistence/usage-counters.js';
import { openTestDatabase } from '../support/in-process.js';

// The persistence foundation in-process, on a real PostgreSQL: typed SQL from the entities, one transaction
// shared by rows and pg-boss jobs, timestamps as Dates.
describe('persistence foundation', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let queue: JobQueue;

  beforeAll(async () => {
    t = await openTestDatabase('persistence');
    const logger = { error: () => undefined } as unknown as Parameters<typeof startJobQueue>[0]['logger'];
    queue = await startJobQueue({ databaseUrl: t.url, role: 'api', logger });
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, timeoutMs: 1000 });
    await t?.close();
  });

  it('counts usage up to the limit and refuses past it, even when requests race', async () => {
    const accountId = await t.newAccount();
    const u = { accountId, period: '2026-11', metric: 'actions' as const, limit: 5 };
    const results = await Promise.all(Array.from({ length: 8 }, () => consumeUsage(t.database.sql, u)));
    expect(results.filter(Boolean)).toHaveLength(5);
    expect(await usageOf(t.database.sql, accountId, '2026-11')).toEqual({ actions: 5 });
    expect(await consumeUsage(t.database.sql, { ...u, limit: null, amount: 3 })).toBe(true);
    expect(await usageOf(t.database.sql, accountId, '2026-11')).toEqual({ actions: 8 });
    expect(await consumeUsage(t.database.sql, { ...u, metric: 'sms', limit: 0 })).toBe(false);
  });

  async function jobsFor(marker: string): Promise<number> {
    const rows = await jobSqlOn(t.database.sql).executeSql(
      `select 1 from pgboss.job where name = $1 and data ->> 'callbackId' = $2`,
      [QUEUES.callback, marker],
    );
    return rows.rows.length;
  }

  it('a row and its pg-boss job commit together, or neither does', async () => {
    const accountId = await t.newAccount();
    const write = (marker: string) =>
      t.database.transaction(async () => {
        await consumeUsage(t.database.sql, { accountId, period: marker, metric: 'emails', limit: null });
        await queue.send(QUEUES.callback, { callbackId: marker }, { db: t.database.sql });
      });

    await write('2026-01');
    expect(await usageOf(t.database.sql, accountId, '2026-01')).toEqual({ emails: 1 });
    expect(await jobsFor('2026-01')).toBe(1);

    await expect(
      t.database.transaction(async () => {
        await write('2026-02');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await usageOf(t.database.sql, accountId, '2026-02')).toEqual({});
    expect(await jobsFor('2026-02')).toBe(0);
  });

  it('statements with parameters are prepared once per connection, under a name', async () => {
    const names = await t.database.transaction(async () => {
      await usageOf(t.database.sql, 'c0a80101-0000-4000-8000-000000000000', '2026-03');
      return t.database.sql
        .selectFrom(sql<{ name: string; statement: string }>`pg_prepared_statements`.as('p'))
        .select(['p.name', 'p.statement'])
        .execute();
    });
    expect(names).toContainEqual(
      expect.objectContaining({
        name: expect.stringMatching(/^sched_\d+_\d+$/),
        statement: expect.stringContaining('usage_counters'),
      }),
    );
  });

  it('past a thousand texts, statements are still prepared, under names of a new generation', async () => {
    // The due index's readers state the day's horizon, so a long-lived process meets new texts every day.
    const names = await t.database.transaction(async () => {
      for (let i = 0; i < 1_001; i += 1)
        await sql`select ${i}::int as n, ${sql.lit(`probe ${i}`)}::text as marker`.execute(t.database.sql);
      return t.database.sql
        .selectFrom(sql<{ name: string; statement: string }>`pg_prepared_statements`.as('p'))
        .select(['p.name', 'p.statement'])
        .where('p.statement', 'like', '%as marker%')
        .execute();
    });
    const generations = new Set(names.map((n) => Number(/_(\d+)$/.exec(n.name)?.[1])));
    expect(names.length).toBeGreaterThanOrEqual(1_001);
    expect(generations.size).toBeGreaterThanOrEqual(2);
  });

  it('the entities and the committed migrations describe the same schema', async () => {
    const diff = await t.database.orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
    const statements = diff
      .split(/;\n/)
      .map((x) => x.trim())
      .filter((x) => x && !x.startsWith('set names'));
    expect(statements).toEqual([]);
    // What `new-migration.js` runs: MikroORM's migrator finds nothing to write either.
    const created = await t.database.orm.migrator.create(tmpdir(), false, false, 'Probe');
    expect(created).toMatchObject({ fileName: '', diff: { up: [] } });
  });

  it('timestamps arrive as Dates, as the entity types say', async () => {
    const accountId = await t.newAccount();
    const row = await t.database.sql
      .selectFrom('accounts')
      .select(['created_at'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row.created_at).toBeInstanceOf(Date);
  });
});
