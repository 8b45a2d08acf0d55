import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBulkOperation } from '../../server/src/persistence/bulk-operations.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

// The snapshot of a bulk operation's matched ids grows with the match. Under the service's request-sized
// statement_timeout (SCHED_DB_STATEMENT_TIMEOUT_MS) a large one answered 503 (seen with 100,000 matched actions
// under load in bench/bulk-cancel.mjs); it runs under its own, longer timeout.
describe('a bulk operation snapshots a large match past the service statement timeout', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('bulk_snapshot');
    accountId = await t.newAccount();
    await seedActions(t.url, {
      accountId,
      count: 20_000,
      status: 'scheduled',
      url: 'https://many.example/hook',
      host: 'many.example',
    });
  });
  afterAll(async () => t?.close());

  it('snapshots 20,000 ids in a transaction whose connection has a 1 ms statement_timeout', async () => {
    const row = await t.database.transaction(async (db) => {
      // What the service's pooled connection carries, made small enough that any large statement passes it.
      await rawQuery(db, `select set_config('statement_timeout', '1', true)`);
      return startBulkOperation(
        db,
        {
          id: crypto.randomUUID(),
          accountId,
          operation: 'cancel',
          filter: { destination_host: 'many.example' },
          options: null,
          note: null,
          now: new Date(),
        },
        { filter: { destinationHost: 'many.example' } },
      );
    });
    expect(row.matched).toBe(20_000);
    const items = await rawQuery<{ n: number }>(
      t.database.sql,
      'select count(*)::int as n from bulk_operation_items where operation_id = $1',
      [row.id],
    );
    expect(items[0]?.n).toBe(20_000);
    // The longer timeout ended with the transaction: the pooled connection is back to its own setting.
    const setting = await rawQuery<{ timeout: string }>(
      t.database.sql,
      `select current_setting('statement_timeout') as timeout`,
    );
    expect(setting[0]?.timeout).not.toBe('2min');
  });
});
