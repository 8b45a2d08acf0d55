import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrateUp, openOrm } from '../../server/src/persistence/database.js';
import { timeOrderedId } from '../../server/src/persistence/ids.js';
import { attemptPartitionName } from '../../server/src/persistence/partitions.js';
import { monthStart } from '../../server/src/domain/history/partitions.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawQuery } from '../support/in-process.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** The last migration release 188718b had: a database it made stops here. */
const RELEASE_188718B = 'Migration20261127031500_AccountSigningSecret';
const PARTITIONS = 'Migration20261128200000_AttemptPartitions';

interface AttemptRow {
  id: string;
  action_id: string;
  attempt_number: number;
  started_at: Date;
  outcome: string;
  status_code: number | null;
}

/**
 * A database made by release 188718b, with attempts written the old way (random ids from before ids were
 * time-ordered, and time-ordered ones) over three months, is migrated to the partitioned attempt log: every row is
 * kept, lands in its month's partition, and is listed through the API, newest first, a page at a time; `down` puts
 * them back in one plain table.
 */
describe('migration: the attempt log partitioned by month, from a 188718b database', {
  timeout: 120_000,
}, () => {
  let test: TestDatabase;
  let database: Database;
  let server: TestServer | undefined;
  const account = randomUUID();
  const series = randomUUID();
  const single = randomUUID();
  const now = new Date();
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
  let before: AttemptRow[] = [];

  const attempts = () =>
    rawQuery<AttemptRow & { partition: string }>(
      database.sql,
      `select id::text, action_id::text, attempt_number, started_at, outcome, status_code,
              tableoid::regclass::text as partition
         from delivery_attempts order by action_id, started_at`,
    );

  const relkind = async () =>
    (
      await rawQuery<{ relkind: string }>(
        database.sql,
        `select relkind from pg_class where relname = 'delivery_attempts' and relnamespace = current_schema()::regnamespace`,
      )
    )[0]?.relkind;

  beforeAll(async () => {
    test = await createTestDatabase('attempt_partitions', { empty: true });
    database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 2 }));
    await database.orm.migrator.up({ to: RELEASE_188718B });
    const db = database.sql;
    await rawQuery(
      db,
      `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'old', 'business', now(), now())`,
      [account],
    );
    for (const [id, name, recurrence] of [
      [series, 'a series of the old release', { frequency: 1, unit: 'd', end_type: 'never' }],
      [single, 'one-time', null],
    ] as const)
      await rawQuery(
        db,
        `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at, max_attempts,
           attempt_count, retry_strategy, request, destination_host, recurrence, created_at, updated_at)
         values ($1, $2, $3, 'webhook', $4, 'UTC', $5, $5, 3, 1, 'exponential', $6, '127.0.0.1', $7, $5, $5)`,
        [
          id,
          account,
          name,
          recurrence ? 'scheduled' : 'executed',
          daysAgo(70),
          JSON.stringify({ url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {} }),
          recurrence ? JSON.stringify(recurrence) : null,
        ],
      );
    // 45 attempts of the series, one a day from 70 days ago on, the older half with random ids (as releases before
    // time-ordered ids wrote them), the rest time-ordered of their start; and one attempt of the one-time action.
    for (let n = 0; n < 45; n++) {
      const at = daysAgo(70 - n);
      await rawQuery(
        db,
        `insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
           status_code, outcome, error_class, response_truncated)
         values ($1, $2, 1, $3, $3, 4, 12, $4, $5, $6, false)`,
        [
          n < 20 ? randomUUID() : timeOrderedId(at.getTime()),
          series,
          at,
          n % 3 === 0 ? 503 : 200,
          n % 3 === 0 ? 'retryable' : 'success',
          n % 3 === 0 ? 'http' : null,
        ],
      );
    }
    await rawQuery(
      db,
      `insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
         status_code, outcome, response_truncated)
       values (gen_random_uuid(), $1, 1, $2, $2, 1, 1, 200, 'success', false)`,
      [single, daysAgo(65)],
    );
    before = await attempts();
    expect(before).toHaveLength(46);
    expect(await migrateUp(database.orm)).toContain(PARTITIONS);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.close();
    await test?.drop();
  });

  it('keeps every row, each in the partition of its month', async () => {
    const after = await attempts();
    const fields = (r: AttemptRow) => ({
      action_id: r.action_id,
      attempt_number: r.attempt_number,
      started_at: r.started_at,
      outcome: r.outcome,
      status_code: r.status_code,
    });
    expect(after.map(fields)).toEqual(before.map(fields));
    // Time-ordered ids kept; random ones now time-ordered of their start, so each row's month is its start's.
    const kept = new Set(before.map((r) => r.id));
    for (const r of after) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      const idTime = Number.parseInt(r.id.replace(/-/g, '').slice(0, 12), 16);
      if (!kept.has(r.id)) expect(idTime).toBe(r.started_at.getTime());
      expect(r.partition).toBe(attemptPartitionName(monthStart(new Date(idTime))));
    }
    expect(await relkind()).toBe('p');
    // This month and the next two exist however old the rows are.
    const names = new Set(after.map((r) => r.partition));
    const partitions = await rawQuery<{ name: string }>(
      database.sql,
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'delivery_attempts'::regclass`,
    );
    const all = new Set(partitions.map((p) => p.name));
    for (const k of [0, 1, 2]) expect(all).toContain(attemptPartitionName(monthStart(now, k)));
    for (const n of names) expect(all).toContain(n);
  });

  it('lists them through the API, newest first, a page at a time', async () => {
    server = await startServer({ databaseUrl: test.url });
    const created = await runCli(['admin', 'keys', 'create', '--account', account, '--json'], server.env);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout).api_key as string;
    const view = await api(server, key, 'GET', `/v1/actions/${series}`);
    expect(view.status).toBe(200);
    expect(view.body.data.delivery_attempts).toHaveLength(20);
    expect(view.body.data.delivery_attempts_more).toBe(true);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await api(
        server,
        key,
        'GET',
        `/v1/actions/${series}/attempts?limit=10${cursor ? `&before=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((a: { started_at: string }) => a.started_at));
      cursor = page.body.meta.next_before;
    } while (cursor);
    const expected = before
      .filter((r) => r.action_id === series)
      .map((r) => r.started_at.toISOString())
      .reverse();
    expect(seen).toEqual(expected);
    const one = await api(server, key, 'GET', `/v1/actions/${single}`);
    expect(one.body.data.delivery_attempts).toMatchObject([{ status_code: 200, outcome: 'success' }]);
    await server.stop();
    server = undefined;
  });

  it('goes back to one plain table with every row on down', async () => {
    // Back through the migrations after it, then it.
    for (;;) {
      const [last] = (await database.orm.migrator.getExecuted()).slice(-1);
      await database.orm.migrator.down();
      if (last?.name === PARTITIONS) break;
    }
    const rows = await attempts();
    expect(rows).toHaveLength(46);
    expect(new Set(rows.map((r) => r.partition))).toEqual(new Set(['delivery_attempts']));
    expect(await relkind()).toBe('r');
    expect(await migrateUp(database.orm)).toContain(PARTITIONS);
    expect(await attempts()).toHaveLength(46);
  });
});
