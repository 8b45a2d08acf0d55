import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTransitionFields } from '../../server/src/app/actions/transition.js';
import { CLAIM, PROMOTE, type SetTransition } from '../../server/src/domain/action/set-transition.js';
import { ACTION_STATES, type ActionState } from '../../server/src/domain/action/states.js';
import { claimDue } from '../../server/src/persistence/delivery-claims.js';
import { claimDueShare } from '../../server/src/persistence/delivery-scan.js';
import { promoteEntering } from '../../server/src/persistence/schedule.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions, sqlValue } from '../support/seed.js';

// The promote and the claims write many rows in one statement each, beside the one-row path every other change takes
// (app/actions/transition.ts). Both read the state table and the effects table (domain/action/set-transition.ts):
// here each statement runs over one due row in every state, and each row must end as the one-row path says (the
// state, the resets, the lease) where the table lets the change apply, and untouched elsewhere.
describe('the set-based state changes write what the state table says', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  const share = { slots: 1, slot: 0, overdueBefore: new Date(0) };
  const WRITTEN = ['status', 'next_attempt_at', 'last_error', 'lease_until', 'updated_at'] as const;
  type Written = Record<(typeof WRITTEN)[number], unknown>;

  beforeAll(async () => {
    t = await openTestDatabase('set-transitions');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** One webhook action in each state, due at `due`, with an error and an old `updated_at` to reset or keep. */
  async function oneInEachState(due: Date): Promise<Map<ActionState, string>> {
    const accountId = await t.newAccount();
    await seedActions(t.url, {
      accountId,
      count: ACTION_STATES.length,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: due,
    });
    const ids = await sqlValue<string[]>(
      t.url,
      `select array_agg(id order by name) from actions where account_id = $1`,
      [accountId],
    );
    const states = new Map<ActionState, string>();
    for (const [i, state] of ACTION_STATES.entries()) {
      await sqlValue(
        t.url,
        `update actions set status = $2, next_attempt_at = $3, last_error = 'before', updated_at = $4 where id = $1`,
        [ids[i], state, due, new Date(0)],
      );
      states.set(state, ids[i]!);
    }
    return states;
  }

  async function written(id: string): Promise<Written> {
    const row = (await t.database.sql
      .selectFrom('actions')
      .select([...WRITTEN])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()) as Written;
    return row;
  }

  /** Each row as the one-row path would have written it where `change` applies, and as it was elsewhere. */
  async function expectTable(
    change: SetTransition,
    states: Map<ActionState, string>,
    before: Map<ActionState, Written>,
    p: { now: Date; leaseUntil?: Date },
  ) {
    for (const [state, id] of states) {
      const row = await written(id);
      if (change.from.includes(state))
        expect(row, state).toEqual({ ...before.get(state), ...setTransitionFields(change, state, p) });
      else expect(row, state).toEqual(before.get(state));
    }
  }

  async function snapshot(states: Map<ActionState, string>) {
    return new Map(await Promise.all([...states].map(async ([s, id]) => [s, await written(id)] as const)));
  }

  it('the promote', async () => {
    const states = await oneInEachState(new Date(Date.now() + 30_000));
    const before = await snapshot(states);
    const now = new Date();
    await promoteEntering(t.database.sql, {
      until: new Date(now.getTime() + 60_000),
      now,
      limit: 100,
      share,
    });
    await expectTable(PROMOTE, states, before, { now });
    expect(PROMOTE.from.length).toBeGreaterThan(0);
  });

  it('the claim by id', async () => {
    const states = await oneInEachState(new Date(Date.now() - 1_000));
    const before = await snapshot(states);
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + 30_000);
    const found = await claimDue(t.database.sql, {
      actionIds: [...states.values()],
      leaseUntil,
      dueBy: now,
      now,
    });
    expect([...found.values()].filter((f) => f.claimed)).toHaveLength(CLAIM.from.length);
    await expectTable(CLAIM, states, before, { now, leaseUntil });
  });

  it("the claim of a worker's share", async () => {
    const states = await oneInEachState(new Date(Date.now() - 1_000));
    const before = await snapshot(states);
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + 30_000);
    const claim = await claimDueShare(t.database.sql, {
      until: now,
      now,
      leaseUntil,
      limit: 100,
      scan: 100,
      share,
      rooms: new Map(),
      perAccount: 100,
    });
    expect(claim.claimed.map((r) => r.id).sort()).toEqual(CLAIM.from.map((s) => states.get(s)).sort());
    await expectTable(CLAIM, states, before, { now, leaseUntil });
  });
});
