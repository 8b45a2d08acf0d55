import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  destinationLoad,
  requestsInFlight,
  requestsInFlightQuery,
} from '../../server/src/persistence/destination-actions.js';
import { listActions, matchingActions } from '../../server/src/persistence/actions.js';
import { countActionsByStatus } from '../../server/src/persistence/stats.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { executedPlan } from '../support/plans.js';
import { seedActions } from '../support/seed.js';

/**
 * What is in flight to an origin and what waits for it are read through the due index (and the held one), never
 * through the origin's actions: flow control counts the requests in flight before every request to a limited origin,
 * and read every action aimed at it, ten million when a backlog waits there.
 */
describe("an origin's load is read from the due attempts, not from its actions", { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';
  let otherId = '';
  const origin = 'http://127.0.0.1:9';
  const receiver = { url: `${origin}/hook`, host: '127.0.0.1' };
  let inFlight: string[] = [];

  beforeAll(async () => {
    t = await openTestDatabase('destination_load');
    accountId = await t.newAccount('business');
    otherId = await t.newAccount('business');
    // A backlog a year out, the history, and the same origin in another account.
    await seedActions(t.url, { accountId, count: 20_000, status: 'scheduled', ...receiver });
    await seedActions(t.url, { accountId, count: 5_000, status: 'executed', ...receiver });
    await seedActions(t.url, { accountId: otherId, count: 10, status: 'scheduled', ...receiver });
    const now = `now()`;
    const some = (account: string, n: number, set: string) =>
      rawQuery<{ id: string }>(
        t.database.sql,
        `update actions a set ${set}
           from (select id from actions where account_id = $1 and status = 'scheduled' order by id limit ${n}) s
          where a.id = s.id returning a.id`,
        [account],
      );
    // Three in flight (one of them under an expired lease), two due and waiting, one held by its destination; and
    // one in flight in the other account.
    inFlight = (
      await some(
        accountId,
        3,
        `status = 'executing', next_attempt_at = ${now} - interval '2 seconds', lease_until = ${now} + interval '1 minute'`,
      )
    ).map((r) => r.id);
    await rawQuery(
      t.database.sql,
      `update actions set lease_until = now() - interval '1 second' where id = $1`,
      [inFlight[2]],
    );
    await some(accountId, 2, `status = 'resolved', next_attempt_at = ${now} - interval '1 minute'`);
    await some(
      accountId,
      1,
      `held_since = ${now}, held_by = 'paused', next_attempt_at = ${now} - interval '1 minute'`,
    );
    await some(
      otherId,
      1,
      `status = 'executing', next_attempt_at = ${now} - interval '2 seconds', lease_until = ${now} + interval '1 minute'`,
    );
    await rawQuery(t.database.sql, 'vacuum (analyze) actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts the attempts in flight and those waiting, of the account only', async () => {
    const load = await destinationLoad(t.database.sql, accountId, origin, new Date());
    expect(load).toEqual({ inFlight: 3, waiting: 3 });
    const live = await requestsInFlight(t.database.sql, {
      accountId,
      origin,
      actionId: inFlight[0]!,
      now: new Date(),
    });
    // The first is the one asking, the third's lease ran out.
    expect(live).toBe(1);
  });

  it("reads flow control's count through the due index, a few rows, not the origin's 25,000 actions", async () => {
    const query = requestsInFlightQuery(t.database.sql, {
      accountId,
      origin,
      actionId: inFlight[0]!,
      now: new Date(),
    }).compile();
    const plan = await executedPlan(t.database.sql, query);
    const scans = plan.filter((n) => n['Relation Name'] === 'actions');
    expect(scans.map((n) => n['Index Name'])).toEqual(['actions_due_index']);
    // Every due attempt of every account is read (the due backlog), and nothing else: 3 + 2 here and 1 elsewhere.
    const read = scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0), 0);
    expect(read).toBeLessThanOrEqual(6);
  });

  it('lists and counts the actions in flight through the due index, not the 20,000 waiting for their time', async () => {
    const now = new Date();
    const listed = await listActions(
      t.database.sql,
      accountId,
      { status: 'executing' },
      { limit: 10, offset: 0 },
      now,
    );
    expect({ total: listed.total, exact: listed.exact }).toEqual({ total: 3, exact: true });
    expect(listed.rows.map((r) => r.id).sort()).toEqual([...inFlight].sort());
    const count = matchingActions(t.database.sql, accountId, { status: 'executing' }, now)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .compile();
    const scans = (await executedPlan(t.database.sql, count)).filter((n) => n['Relation Name'] === 'actions');
    expect(scans.map((n) => n['Index Name'])).toEqual(['actions_due_index']);
    expect(scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0), 0)).toBeLessThanOrEqual(6);
    // Past the exact limit the overview estimates the states waiting for their time, and still counts these.
    const byStatus = await countActionsByStatus(t.database.sql, accountId, now);
    expect(byStatus.get('scheduled')?.exact).toBe(false);
    expect(byStatus.get('executing')).toEqual({ total: 3, exact: true });
  });
});
