import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findAction,
  insertAction,
  insertActionsWithAudit,
  type NewAction,
} from '../../server/src/persistence/actions.js';
import { openTestDatabase } from '../support/in-process.js';

// The create's insert answers only what the database decides and builds the rest of the row from what it inserted:
// the row it answers must be the row the database holds, every column of it (a new column with a default the
// builder does not know, or a default changed in a migration, fails here).
describe('the row a create answers', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('create_row');
    accountId = await t.newAccount('business');
  });
  afterAll(async () => {
    await t?.close();
  });

  function newAction(over: Partial<NewAction> = {}): NewAction {
    const at = new Date(Date.now() + 3_600_000);
    const now = new Date();
    return {
      id: randomUUID(),
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      created_via: 'api',
      counted_occurrence: 0,
      account_id: accountId,
      name: 'ping  ',
      description: 'déjà vu 🙂',
      mode: 'webhook',
      status: 'scheduled',
      timezone: 'Europe/Paris',
      scheduled_for: at,
      next_attempt_at: at,
      idempotency_key: `key-${randomUUID()}`,
      dedup_keys: ['b', 'a'],
      max_attempts: 5,
      retry_strategy: 'exponential',
      // Keys in an order jsonb does not keep (it sorts them, shorter first): the answer shows the stored order.
      request: {
        url: 'https://User:pw@Receiver.Example:8443/hook?x=1',
        method: 'POST',
        headers: { 'X-Long-Header-Name': 'v', A: 'w' },
        body: '{"zeta":1,"a":[1,2]}',
      },
      webhook_secret: null,
      callback_url: 'https://callbacks.example/cb',
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      gate: null,
      chain_id: null,
      chain_step_index: null,
      created_at: now,
      updated_at: now,
      ...over,
    };
  }

  async function stored(id: string) {
    return findAction(t.database.sql, accountId, id);
  }

  it('insertAction answers each row as the database holds it', async () => {
    const actions = [
      newAction(),
      newAction({ request: null, mode: 'approval', webhook_secret: 'whsec_own', idempotency_key: null }),
      newAction({ status: 'resolved', dedup_keys: [], recurrence_index: 3, window_state: null }),
    ];
    const rows = [];
    for (const a of actions) rows.push(await insertAction(t.database.sql, a));
    expect(rows.map((r) => r.id)).toEqual(actions.map((a) => a.id));
    for (const row of rows) {
      const read = await stored(row.id);
      expect(row).toEqual(read);
      expect(JSON.stringify(row.request)).toBe(JSON.stringify(read!.request));
    }
    expect(rows[0]!.request!.headers).toEqual({ A: 'w', 'X-Long-Header-Name': 'v' });
    expect(rows[0]!.destination_host).toBe('receiver.example');
  });

  it('insertActionsWithAudit answers them too', async () => {
    const actions = [newAction(), newAction({ next_attempt_at: new Date() })];
    const rows = await t.database.transaction((db) =>
      insertActionsWithAudit(db, actions, '[]', new Date(Date.now() + 1_000)),
    );
    expect(rows.map((r) => r.id)).toEqual(actions.map((a) => a.id));
    for (const row of rows) expect(row).toEqual(await stored(row.id));
  });
});
