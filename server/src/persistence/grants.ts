import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Sql, Tables } from './database.js';

export type GrantRow = Selectable<Tables['grants']>;

export async function insertGrant(
  db: Sql,
  g: {
    accountId: string;
    key: string;
    actionId: string;
    recipientId: string;
    givenBy: string;
    expiresAt: Date;
    now: Date;
  },
): Promise<GrantRow> {
  return db
    .insertInto('grants')
    .values({
      id: randomUUID(),
      account_id: g.accountId,
      key: g.key,
      action_id: g.actionId,
      recipient_id: g.recipientId,
      given_by: g.givenBy,
      expires_at: g.expiresAt,
      revoked_at: null,
      created_at: g.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The live grant of the account for `key` that lasts longest, if any. */
export async function liveGrant(
  db: Sql,
  accountId: string,
  key: string,
  now: Date,
): Promise<GrantRow | undefined> {
  return db
    .selectFrom('grants')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .where('revoked_at', 'is', null)
    .orderBy('expires_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The account's grants still live, soonest to end first. */
export async function liveGrants(db: Sql, accountId: string, now: Date, limit: number): Promise<GrantRow[]> {
  return db
    .selectFrom('grants')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .where('revoked_at', 'is', null)
    .orderBy('expires_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

/** Revokes a live grant of the account; answers it, or undefined when there is none by that id. */
export async function revokeGrant(
  db: Sql,
  accountId: string,
  id: string,
  now: Date,
): Promise<GrantRow | undefined> {
  return db
    .updateTable('grants')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}
