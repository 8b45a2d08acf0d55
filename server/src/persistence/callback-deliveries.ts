import { type Selectable, sql } from 'kysely';
import { isBlockedAddress } from '../domain/destinations/policy.js';
import { countedNames, type SendSource } from '../domain/domains/rules.js';
import type { Sql, Tables } from './database.js';

export type CallbackStatus = 'pending' | 'delivered' | 'rejected' | 'abandoned';

/** Writes a callback to the outbox, `pending` until a job delivers it. */
export async function insertCallback(
  db: Sql,
  c: {
    id: string;
    accountId: string;
    /** The action, or the chain (chain.* events), the event is about. */
    actionId?: string;
    chainId?: string;
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
      action_id: c.actionId ?? null,
      chain_id: c.chainId ?? null,
      event: c.event,
      url: c.url,
      // Worked out once, so each delivery reads their verification with its row.
      destination_names: countedNames(c.url, isBlockedAddress),
      envelope: c.envelope as Record<string, unknown>,
      status: 'pending',
      attempt_count: 0,
      created_at: c.now,
    })
    .execute();
}

/**
 * A callback with what its delivery needs from its action or chain: the signing secret, whose act it is, and whether
 * a name its URL counts against is verified (read with the row, so a verified host costs no statement more).
 */
export async function findCallback(
  db: Sql,
  id: string,
): Promise<
  | (Pick<
      Selectable<Tables['callback_deliveries']>,
      'id' | 'account_id' | 'url' | 'event' | 'envelope' | 'status' | 'attempt_count' | 'destination_names'
    > & {
      webhook_secret: string | null;
      created_via: SendSource;
      destination_verified: boolean;
    })
  | null
> {
  const row = await db
    .selectFrom('callback_deliveries as c')
    .leftJoin('actions as a', 'a.id', 'c.action_id')
    .leftJoin('chains as ch', 'ch.id', 'c.chain_id')
    .select([
      'c.id',
      'c.account_id',
      'c.url',
      'c.event',
      'c.envelope',
      'c.status',
      'c.attempt_count',
      'c.destination_names',
    ])
    .select((eb) => [
      eb.fn.coalesce('a.webhook_secret', 'ch.webhook_secret').as('webhook_secret'),
      eb.fn.coalesce('a.created_via', 'ch.created_via', sql.lit<SendSource>('api')).as('created_via'),
      eb
        .exists(
          eb
            .selectFrom('domains as d')
            .select('d.domain')
            .whereRef('d.account_id', '=', 'c.account_id')
            // The host itself: verifying its registrable domain does not cover it.
            .where(sql<boolean>`d.domain = c.destination_names[1]`)
            .where('d.verified', '=', true),
        )
        .as('destination_verified'),
    ])
    .where('c.id', '=', id)
    .executeTakeFirst();
  return row ? { ...row, destination_verified: row.destination_verified === true } : null;
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
