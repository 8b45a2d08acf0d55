import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, openOrm } from '../../server/src/persistence/database.js';
import { migrationsList } from '../../server/src/persistence/migrations/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawQuery } from '../support/in-process.js';

const COLD_COLUMNS_LAST = 'Migration20261129030000_ColdColumnsLast';
/** The columns the migration moves behind the ones a delivery changes. */
const MOVED = [
  'timezone',
  'idempotency_key',
  'dedup_keys',
  'max_attempts',
  'retry_strategy',
  'manual_retry_count',
  'request',
  'webhook_secret',
  'callback_url',
  'coordination',
  'recurrence',
  'gate',
  'destination_host',
  'traceparent',
  'created_via',
  'delivery_window',
  'destination_origin',
];

/**
 * A database as it stood before the migration that moves the cold columns of `actions` to the end of the row, with
 * rows that fill every moved column one way or another, is migrated: every row keeps every value, the moved columns
 * lie behind the generated ones, and the indexes their drop removed are back, the unique one still refusing.
 */
describe('migration: the columns a delivery never changes move to the end of the row', {
  timeout: 120_000,
}, () => {
  let test: TestDatabase;
  let database: Database;
  const account = randomUUID();
  let before: unknown[] = [];
  let indexesBefore: string[] = [];
  let widthsBefore = new Map<string, number>();

  const rows = () =>
    rawQuery<{ row: unknown }>(database.sql, 'select to_jsonb(a) as row from actions a order by id').then(
      (r) => r.map((x) => x.row),
    );
  const indexes = () =>
    rawQuery<{ def: string }>(
      database.sql,
      `select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = 'actions'::regclass and indisvalid
        order by 1`,
    ).then((r) => r.map((x) => x.def));

  // Each row's stored length, by id (pageinspect: the heap tuples as they lie on the pages).
  const widths = async () => {
    const items = await rawQuery<{ id: string; width: number }>(
      database.sql,
      `select a.id::text, i.lp_len as width
         from generate_series(0, pg_relation_size('actions') / 8192 - 1) p
        cross join lateral heap_page_items(get_raw_page('actions', p::int)) i
         join actions a on a.ctid = ('(' || p || ',' || i.lp || ')')::tid`,
    );
    return new Map(items.map((r) => [r.id, r.width]));
  };

  beforeAll(async () => {
    test = await createTestDatabase('cold_columns', { empty: true });
    database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 2 }));
    await rawQuery(database.sql, 'create extension if not exists pageinspect');
    const previous = migrationsList[migrationsList.findIndex((m) => m.name === COLD_COLUMNS_LAST) - 1]!.name;
    await database.orm.migrator.up({ to: previous });
    await rawQuery(
      database.sql,
      `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'old', 'business', now(), now())`,
      [account],
    );
    // Every third row of one kind or another: plain and pending, with keys and a callback, a failed series.
    await rawQuery(
      database.sql,
      `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at, max_attempts,
         attempt_count, retry_strategy, manual_retry_count, request, webhook_secret, callback_url, coordination,
         recurrence, gate, destination_host, destination_origin, traceparent, created_via, delivery_window,
         idempotency_key, dedup_keys, last_error, created_at, updated_at)
       select gen_random_uuid(), $1, 'action ' || g, case when g % 3 = 2 then 'approval' else 'webhook' end,
              (array['scheduled', 'executed', 'failed'])[g % 3 + 1], 'Europe/Paris', now() + g * interval '1 min',
              case when g % 3 = 0 then now() + g * interval '1 min' end, 3 + g % 2, g % 3, 'exponential', g % 2,
              case when g % 3 <> 2 then jsonb_build_object('url', 'https://example.com/h/' || g, 'method', 'POST',
                                                            'headers', jsonb_build_object('x-n', g::text),
                                                            'body', jsonb_build_object('n', g)) end,
              case when g % 2 = 0 then 'whsec_' || md5(g::text) end,
              case when g % 4 = 0 then 'https://example.com/cb' end,
              case when g % 5 = 0 then '{"on_create": {"dedup_keys": ["k"]}}'::jsonb end,
              case when g % 3 = 2 then '{"frequency": 1, "unit": "d", "end_type": "never"}'::jsonb end,
              case when g % 3 = 2 then jsonb_build_object('round', g) end,
              case when g % 3 <> 2 then 'example.com' end, case when g % 3 <> 2 then 'https://example.com' end,
              case when g % 2 = 1 then '00-' || md5(g::text) || '-' || left(md5(g::text), 16) || '-01' end,
              case when g % 7 = 0 then 'trigger' else 'api' end,
              case when g % 6 = 0 then '{"days": ["mon"], "start": "09:00", "end": "17:00"}'::jsonb end,
              case when g % 4 = 1 then 'idem-' || g end, case when g % 5 = 0 then array['k' || g] else '{}' end,
              case when g % 3 = 1 then 'HTTP 500' end, now() - g * interval '1 s', now()
         from generate_series(1, 60) g`,
      [account],
    );
    before = await rows();
    indexesBefore = await indexes();
    widthsBefore = await widths();
    expect(widthsBefore.size).toBe(60);
    expect(before).toHaveLength(60);
    // Up to the migration under test: the ones after it have changes of their own (an index added later).
    const ran = await database.orm.migrator.up({ to: COLD_COLUMNS_LAST });
    expect(ran.map((m) => m.name)).toContain(COLD_COLUMNS_LAST);
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it('keeps every row and every value', async () => {
    expect(await rows()).toEqual(before);
  });

  it('puts the moved columns behind every other, and leaves none of the old ones behind', async () => {
    const columns = await rawQuery<{ name: string; dropped: boolean }>(
      database.sql,
      `select attname as name, attisdropped as dropped from pg_attribute
        where attrelid = 'actions'::regclass and attnum > 0 order by attnum`,
    );
    const live = columns.filter((c) => !c.dropped).map((c) => c.name);
    expect(live.slice(-MOVED.length)).toEqual(MOVED);
    expect(live).toContain('failed_at');
    expect(live.filter((c) => c.endsWith('_moved'))).toEqual([]);
    // The table was rewritten, the moved values written once: no row's stored tuple carries its old copy as well
    // (the new order's alignment may cost it a few bytes).
    const after = await widths();
    for (const [id, width] of widthsBefore) expect(after.get(id)).toBeLessThanOrEqual(width + 16);
  });

  it('has the same indexes, and the unique one still refuses a second live action with one key', async () => {
    expect(await indexes()).toEqual(indexesBefore);
    const [key] = await rawQuery<{ idempotency_key: string }>(
      database.sql,
      `select idempotency_key from actions where idempotency_key is not null and status = 'scheduled' limit 1`,
    );
    await expect(
      rawQuery(
        database.sql,
        `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, max_attempts, retry_strategy,
           idempotency_key, created_at, updated_at)
         values (gen_random_uuid(), $1, 'again', 'webhook', 'scheduled', 'UTC', now(), 3, 'exponential', $2, now(), now())`,
        [account, key!.idempotency_key],
      ),
    ).rejects.toThrow(/actions_live_idempotency_key_unique/);
  });
});
