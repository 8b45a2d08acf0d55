import type { Selectable } from 'kysely';
import type { Sql, Tables } from './database.js';

export type CallbackStatus = 'pending' | 'delivered' | 'rejected' | 'abandoned';

/** Writes a callback to the outbox, `pending` until a job delivers it. */
export async function insertCallback(
  db: Sql,
  c: {
    id: string;
    accountId: string;
    actionId: string;
    event: string;
    url: string;
    envelope: object;
    now: Date;
  },
): Promise<void> {
  await db
    .insertInto('callback_deliveries')
    .values({
      id: c.id,
      account_id: c.accountId,
      action_id: c.actionId,
      event: c.event,
      url: c.url,
      envelope: c.envelope as Record<string, unknown>,
      status: 'pending',
      attempt_count: 0,
      created_at: c.now,
    })
    .execute();
}

/** A callback with what its delivery needs from the action (the signing secret). */
export async function findCallback(
  db: Sql,
  id: string,
): Promise<
  | (Pick<
      Selectable<Tables['callback_deliveries']>,
      'id' | 'url' | 'event' | 'envelope' | 'status' | 'attempt_count'
    > & {
      webhook_secret: string | null;
    })
  | null
> {
  const row = await db
    .selectFrom('callback_deliveries as c')
    .innerJoin('actions as a', 'a.id', 'c.action_id')
    .select(['c.id', 'c.url', 'c.event', 'c.envelope', 'c.status', 'c.attempt_count', 'a.webhook_secret'])
    .where('c.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** Records one delivery attempt of a pending callback. */
export async function recordCallbackAttempt(
  db: Sql,
  r: {
    id: string;
    status: CallbackStatus;
    attempts: number;
    statusCode: number | null;
    error: string | null;
    now: Date;
  },
): Promise<void> {
  await db
    .updateTable('callback_deliveries')
    .set({
      status: r.status,
      attempt_count: r.attempts,
      last_status_code: r.statusCode,
      last_error: r.error,
      delivered_at: r.status === 'delivered' ? r.now : null,
    })
    .where('id', '=', r.id)
    .where('status', '=', 'pending')
    .execute();
}
