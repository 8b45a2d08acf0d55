import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActions, matchingActions } from '../../server/src/persistence/actions.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { executedPlan } from '../support/plans.js';
import { seedActions } from '../support/seed.js';

/**
 * The failed inbox's `meta.total` counts every failed action of the account. It must read the account's phase index
 * alone (an index-only scan, no visit to the rows): with a million failed actions, a visit per row is what made the
 * inbox take half a second in the backlog benchmark.
 */
describe('the failed inbox counts from the index alone', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';
  const FAILED = 20_000;
  const PENDING = 5_000;
  const UNAVAILABLE = 3_000;

  beforeAll(async () => {
    t = await openTestDatabase('inbox_count');
    accountId = await t.newAccount('business');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(t.url, { accountId, count: FAILED, status: 'failed', ...receiver });
    await seedActions(t.url, { accountId, count: PENDING, status: 'scheduled', ...receiver });
    await seedActions(t.url, {
      accountId,
      count: UNAVAILABLE,
      status: 'failed',
      url: 'https://b.example/hook',
      host: 'b.example',
      lastAttempt: { statusCode: 503, errorClass: 'http' },
    });
    // What the autovacuum does to a table that stopped changing: the visibility map lets a scan skip the rows.
    await rawQuery(t.database.sql, 'vacuum (analyze) actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the total of the failed inbox without a visit to the rows, and its first page newest first', async () => {
    const count = matchingActions(t.database.sql, accountId, { status: 'failed' }, new Date())
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .compile();
    const plan = await executedPlan(t.database.sql, count);
    const scans = plan.filter((n) => n['Relation Name'] === 'actions');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
      ['Index Only Scan', 'actions_account_phase_index'],
    ]);
    expect(scans[0]!['Heap Fetches']).toBe(0);

    const page = await listActions(
      t.database.sql,
      accountId,
      { status: 'failed' },
      { limit: 100, offset: 0 },
      new Date(),
    );
    expect(page.total).toBe(FAILED + UNAVAILABLE);
    expect(page.rows).toHaveLength(100);
    expect(page.rows.every((r) => r.status === 'failed')).toBe(true);
    const times = page.rows.map((r) => r.created_at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const pending = await listActions(
      t.database.sql,
      accountId,
      { status: 'scheduled' },
      { limit: 1, offset: 0 },
      new Date(),
    );
    expect(pending.total).toBe(PENDING);
  });

  it('counts the inbox filtered by a host or by the last attempt without a visit to the rows', async () => {
    const fiveHundreds = { lastStatusCode: { from: 500, to: 599 } };
    for (const [filter, index] of [
      [{ destinationHost: 'b.example', ...fiveHundreds }, 'actions_account_destination_host_index'],
      [{ destinationHost: 'b.example', status: 'failed' as const }, 'actions_account_destination_host_index'],
      [{ status: 'failed' as const, ...fiveHundreds }, 'actions_account_phase_index'],
    ] as const) {
      const count = matchingActions(t.database.sql, accountId, filter, new Date())
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .compile();
      const plan = await executedPlan(t.database.sql, count);
      const scans = plan.filter((n) => n['Relation Name'] === 'actions');
      expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Only Scan', index]]);
      expect(scans[0]!['Heap Fetches']).toBe(0);
      const listed = await listActions(
        t.database.sql,
        accountId,
        filter,
        { limit: 10, offset: 0 },
        new Date(),
      );
      expect(listed.total).toBe(UNAVAILABLE);
    }
  });
});
