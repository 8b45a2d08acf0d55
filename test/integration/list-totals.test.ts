import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listActions } from '../../server/src/persistence/actions.js';
import { pendingApprovals } from '../../server/src/persistence/approvals/pending.js';
import { countActionsByStatus, countApprovalsWaiting } from '../../server/src/persistence/stats.js';
import { ACTION_STATES, EXACT_TOTAL_LIMIT } from '@sched/contract';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

/**
 * A list's `meta.total` is counted up to EXACT_TOTAL_LIMIT and estimated past it: counting the ten million actions of
 * one account took seconds. At the limit it is still exact; the failed inbox's kept total is always exact.
 */
describe('list totals past the counting limit', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';
  const SCHEDULED = EXACT_TOTAL_LIMIT;
  const EXECUTED = 3_000;
  const FAILED = 500;
  const ALL = SCHEDULED + EXECUTED + FAILED;
  const page = { limit: 25, offset: 0 };

  beforeAll(async () => {
    t = await openTestDatabase('list_totals');
    accountId = await t.newAccount('business');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(t.url, { accountId, count: SCHEDULED, status: 'scheduled', ...receiver });
    await seedActions(t.url, { accountId, count: EXECUTED, status: 'executed', ...receiver });
    await seedActions(t.url, { accountId, count: FAILED, status: 'failed', ...receiver });
    // The estimate is the planner's: it reads the statistics an autovacuum's analyze would have gathered.
    await rawQuery(t.database.sql, 'analyze actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts a filter that matches exactly the limit, and one below it', async () => {
    const scheduled = await listActions(t.database.sql, accountId, { status: 'scheduled' }, page, new Date());
    expect({ total: scheduled.total, exact: scheduled.exact }).toEqual({ total: SCHEDULED, exact: true });
    const executed = await listActions(t.database.sql, accountId, { status: 'executed' }, page, new Date());
    expect({ total: executed.total, exact: executed.exact }).toEqual({ total: EXECUTED, exact: true });
    const failed = await listActions(t.database.sql, accountId, { status: 'failed' }, page, new Date());
    expect({ total: failed.total, exact: failed.exact }).toEqual({ total: FAILED, exact: true });
  });

  it('estimates past the limit, never below what it counted, and still answers the page', async () => {
    const all = await listActions(t.database.sql, accountId, {}, page, new Date());
    expect(all.exact).toBe(false);
    expect(all.total).toBeGreaterThan(EXACT_TOTAL_LIMIT);
    // The planner's estimate of one account's rows, fresh statistics: near the truth, not a count.
    expect(Math.abs(all.total - ALL) / ALL).toBeLessThan(0.2);
    expect(all.rows).toHaveLength(25);
    const times = all.rows.map((r) => r.created_at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('counts another account exactly, and the approvals list the same way', async () => {
    const other = await t.newAccount('business');
    const none = await listActions(t.database.sql, other, {}, page, new Date());
    expect({ total: none.total, exact: none.exact, rows: none.rows }).toEqual({
      total: 0,
      exact: true,
      rows: [],
    });
    const approvals = await pendingApprovals(
      t.database.sql,
      accountId,
      { status: 'awaiting_response', overdueBefore: new Date(), overdueOnly: false },
      page,
    );
    expect({ total: approvals.total, exact: approvals.exact }).toEqual({ total: 0, exact: true });
  });

  it("counts the overview's states exactly up to the limit, as the list counts each", async () => {
    const byStatus = await countActionsByStatus(t.database.sql, accountId, new Date());
    expect(Object.fromEntries(byStatus)).toEqual(
      Object.fromEntries(
        ACTION_STATES.map((s) => [
          s,
          {
            total: { scheduled: SCHEDULED, executed: EXECUTED, failed: FAILED }[s as string] ?? 0,
            exact: true,
          },
        ]),
      ),
    );
    for (const status of ['scheduled', 'executed', 'failed'] as const) {
      const listed = await listActions(t.database.sql, accountId, { status }, page, new Date());
      expect(listed.total).toBe(byStatus.get(status)?.total);
    }
    expect(await countApprovalsWaiting(t.database.sql, accountId, new Date())).toEqual({
      total: 0,
      exact: true,
    });
  });

  it('estimates the pending states past the limit, each, and still counts the others', async () => {
    const other = await t.newAccount('business');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(t.url, {
      accountId: other,
      count: EXACT_TOTAL_LIMIT + 400,
      status: 'scheduled',
      ...receiver,
    });
    await seedActions(t.url, { accountId: other, count: 30, status: 'failed', ...receiver });
    // A few promoted: the pending phase's states share one index entry, so they are told apart only by estimate.
    await rawQuery(
      t.database.sql,
      `update actions set status = 'resolved'
        where id in (select id from actions where account_id = '${other}' and status = 'scheduled' limit 40)`,
    );
    await rawQuery(t.database.sql, 'analyze actions');
    const byStatus = await countActionsByStatus(t.database.sql, other, new Date());
    expect(byStatus.get('failed')).toEqual({ total: 30, exact: true });
    expect(byStatus.get('executed')).toEqual({ total: 0, exact: true });
    for (const s of ['scheduled', 'resolved'] as const) expect(byStatus.get(s)?.exact).toBe(false);
    // The due index holds every action in flight: those are counted, however many wait.
    expect(byStatus.get('executing')).toEqual({ total: 0, exact: true });
    const scheduled = byStatus.get('scheduled')?.total ?? 0;
    expect(Math.abs(scheduled - (EXACT_TOTAL_LIMIT + 360)) / EXACT_TOTAL_LIMIT).toBeLessThan(0.2);
    // The three make up the phase's estimate, never less than the phase's count.
    const pending = (['scheduled', 'resolved', 'executing'] as const).map((s) => byStatus.get(s)?.total ?? 0);
    expect(pending.reduce((a, b) => a + b, 0)).toBeGreaterThan(EXACT_TOTAL_LIMIT);
    // Past the limit nothing is read row by row: the estimate of the rare states is small, not a count of them.
    expect(byStatus.get('resolved')?.total).toBeLessThan(scheduled / 10);
  });
});
