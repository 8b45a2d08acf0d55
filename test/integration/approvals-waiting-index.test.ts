import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchingApprovals, pendingApprovals } from '../../server/src/persistence/approvals/pending.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { executedPlan } from '../support/plans.js';
import { seedActions } from '../support/seed.js';

/**
 * `GET /v1/approvals` lists the approvals waiting for an answer. They have an index of their own, so the list and its
 * count read only them: without it the statement read every action of the account (272 ms with none waiting among a
 * million). Chains' gate steps wait too and are listed with the rest.
 */
describe('the approvals waiting are read through their own index', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';
  let otherId = '';
  const waiting: string[] = [];

  beforeAll(async () => {
    t = await openTestDatabase('approvals_waiting');
    accountId = await t.newAccount('business');
    otherId = await t.newAccount('business');
    const receiver = { url: 'http://127.0.0.1:9/hook', host: '127.0.0.1' };
    await seedActions(t.url, { accountId, count: 5_000, status: 'executed', ...receiver });
    await seedActions(t.url, { accountId: otherId, count: 10, status: 'executed', ...receiver });
    // Three of the account's actions become approvals waiting, with their gates' timeouts one, two and three hours
    // out; one of the other account's too.
    const made = await rawQuery<{ id: string; n: string }>(
      t.database.sql,
      `update actions a set mode = 'approval', status = 'awaiting_response',
              gate = jsonb_build_object('expires_at', now() + (s.n || ' hours')::interval)
         from (select id, row_number() over (order by id) as n from actions where account_id = $1 limit 3) s
        where a.id = s.id returning a.id, s.n`,
      [accountId],
    );
    waiting.push(...made.sort((a, b) => Number(a.n) - Number(b.n)).map((r) => r.id));
    await rawQuery(
      t.database.sql,
      `update actions set mode = 'approval', status = 'awaiting_response', gate = '{}'::jsonb
        where id = (select id from actions where account_id = $1 limit 1)`,
      [otherId],
    );
    await rawQuery(t.database.sql, 'vacuum (analyze) actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  const filter = { status: 'awaiting_response' as const, overdueBefore: new Date(), overdueOnly: false };

  it('plans the list through actions_awaiting_index alone', async () => {
    const count = matchingApprovals(t.database.sql, accountId, filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .compile();
    const plan = await executedPlan(t.database.sql, count);
    const scans = plan.filter((n) => n['Relation Name'] === 'actions');
    expect(scans.map((n) => n['Index Name'])).toEqual(['actions_awaiting_index']);
    expect(scans[0]!['Actual Rows']).toBe(3);
  });

  it('answers the account waiting approvals, nearest timeout first, and not another account', async () => {
    const page = await pendingApprovals(t.database.sql, accountId, filter, { limit: 10, offset: 0 });
    expect({ total: page.total, exact: page.exact }).toEqual({ total: 3, exact: true });
    expect(page.rows.map((r) => r.id)).toEqual(waiting);
    const executed = await pendingApprovals(
      t.database.sql,
      accountId,
      { ...filter, status: 'executed' },
      { limit: 1, offset: 0 },
    );
    expect(executed.total).toBe(0);
  });
});
