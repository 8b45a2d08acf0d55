import { TERMINAL_STATES } from '../domain/action/states.js';
import type { Plan } from '../domain/quota/plans.js';
import type { Sql } from './database.js';

/** Rows purged (or, on a dry run, that would be), by table. Rows deleted by cascade are not listed. */
export interface PurgeCounts {
  actions: number;
  delivery_attempts: number;
  reminder_events: number;
  outbox_messages: number;
}

export const emptyPurgeCounts = (): PurgeCounts => ({
  actions: 0,
  delivery_attempts: 0,
  reminder_events: 0,
  outbox_messages: 0,
});

/**
 * Terminal actions of the plan's accounts that ended (last changed) before `cutoff`, and what hangs off them. Live
 * actions are never selected: only the terminal states are.
 */
function expiredActions(db: Sql, plan: Plan, cutoff: Date) {
  return db
    .selectFrom('actions')
    .select('actions.id')
    .where('actions.status', 'in', TERMINAL_STATES)
    .where('actions.updated_at', '<', cutoff)
    .where('actions.account_id', 'in', db.selectFrom('accounts').select('id').where('plan', '=', plan));
}

/** Outbox rows of the plan's accounts older than `cutoff` that belong to no action (those go with their action). */
function expiredOutbox(db: Sql, plan: Plan, cutoff: Date) {
  return db
    .selectFrom('outbox_messages')
    .select('outbox_messages.id')
    .where('outbox_messages.created_at', '<', cutoff)
    .where('outbox_messages.action_id', 'is', null)
    .where(
      'outbox_messages.account_id',
      'in',
      db.selectFrom('accounts').select('id').where('plan', '=', plan),
    );
}

/** What a purge would delete now (for `sched purge --dry-run`). */
export async function countExpired(db: Sql, plan: Plan, cutoff: Date): Promise<PurgeCounts> {
  const ids = expiredActions(db, plan, cutoff);
  const count = async (q: Promise<{ n: string | number | bigint }>) => Number((await q).n);
  const [actions, attempts, events, outboxOfActions, outbox] = await Promise.all([
    count(
      db
        .selectFrom(ids.as('e'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('reminder_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('outbox_messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom(expiredOutbox(db, plan, cutoff).as('o'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
  ]);
  return {
    actions,
    delivery_attempts: attempts,
    reminder_events: events,
    outbox_messages: outboxOfActions + outbox,
  };
}

/**
 * Deletes one batch of at most `limit` expired actions with their attempts, reminder events and outbox rows (the
 * rest of their rows go by cascade), then one batch of expired loose outbox rows. Call it in a short transaction
 * of its own and repeat while it deletes anything: the locks held are those of one batch. SKIP LOCKED leaves rows
 * another transaction holds to a later batch or run.
 */
export async function purgeBatch(
  db: Sql,
  plan: Plan,
  cutoff: Date,
  limit: number,
): Promise<{ counts: PurgeCounts; more: boolean }> {
  const batch = await expiredActions(db, plan, cutoff)
    .orderBy('actions.updated_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  const ids = batch.map((r) => r.id);
  const counts = emptyPurgeCounts();
  if (ids.length > 0) {
    const deleted = async (q: { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }) =>
      Number((await q.executeTakeFirst()).numDeletedRows);
    counts.delivery_attempts = await deleted(
      db.deleteFrom('delivery_attempts').where('action_id', 'in', ids),
    );
    counts.reminder_events = await deleted(db.deleteFrom('reminder_events').where('action_id', 'in', ids));
    counts.outbox_messages = await deleted(db.deleteFrom('outbox_messages').where('action_id', 'in', ids));
    counts.actions = await deleted(db.deleteFrom('actions').where('id', 'in', ids));
  }
  const loose = await db
    .deleteFrom('outbox_messages')
    .where(
      'id',
      'in',
      db
        .selectFrom(expiredOutbox(db, plan, cutoff).limit(limit).forUpdate().skipLocked().as('o'))
        .select('o.id'),
    )
    .executeTakeFirst();
  const looseCount = Number(loose.numDeletedRows);
  counts.outbox_messages += looseCount;
  // A full batch of either kind may have left more behind.
  return { counts, more: ids.length === limit || looseCount === limit };
}
