import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { EntityData, EntityName, FilterQuery, InferEntity } from '@mikro-orm/core';
import type { Database, Sql } from './database.js';
import { ContactSchema } from './entities/contact.js';
import { NotificationChannelSchema, TeamMemberSchema } from './entities/approval.js';

/*
 * The account's directory: contacts, notification channels (Slack, Teams) and team members. Plain CRUD, so through
 * the entity manager (in the caller's transaction when there is one); the reads that resolve gate recipients are
 * projections in typed SQL.
 */

type OwnedSchema = typeof ContactSchema | typeof NotificationChannelSchema | typeof TeamMemberSchema;

/** List, find, create, change and delete rows of one account, one entity; another account's id finds nothing. */
export interface OwnedRecords<E> {
  list(accountId: string): Promise<E[]>;
  find(accountId: string, id: string): Promise<E | null>;
  create(
    accountId: string,
    fields: Omit<EntityData<E>, 'id' | 'account' | 'createdAt' | 'updatedAt'>,
  ): Promise<E>;
  /** Loads, applies `change` (which may throw to refuse), saves; null when there is no such row. */
  update(accountId: string, id: string, change: (row: E) => void): Promise<E | null>;
  /** false when there was no such row. */
  delete(accountId: string, id: string): Promise<boolean>;
}

function ownedRecords<S extends OwnedSchema>(database: Database, schema: S): OwnedRecords<InferEntity<S>> {
  type E = InferEntity<S>;
  // One generic body for three entity types the compiler cannot unify; each public use is typed by `S`.
  const entity = schema as unknown as EntityName<E>;
  const em = () => database.orm.em.fork({ keepTransactionContext: true });
  const mine = (accountId: string, id?: string) =>
    (id === undefined ? { account: accountId } : { id, account: accountId }) as unknown as FilterQuery<E>;
  return {
    async list(accountId) {
      return (await em().find(entity, mine(accountId), {
        orderBy: { name: 'asc', createdAt: 'asc' } as never,
      })) as E[];
    },
    async find(accountId, id) {
      return (await em().findOne(entity, mine(accountId, id))) as E | null;
    },
    async create(accountId, fields) {
      const m = em();
      const row = m.create(entity, { id: randomUUID(), ...fields, account: accountId } as never) as E;
      await m.flush();
      return row;
    },
    async update(accountId, id, change) {
      const m = em();
      const row = (await m.findOne(entity, mine(accountId, id))) as E | null;
      if (!row) return null;
      change(row);
      await m.flush();
      return row;
    },
    async delete(accountId, id) {
      return (await em().nativeDelete(entity, mine(accountId, id))) > 0;
    },
  };
}

export const contactRecords = (database: Database) => ownedRecords(database, ContactSchema);
export const channelRecords = (database: Database) => ownedRecords(database, NotificationChannelSchema);
export const teamMemberRecords = (database: Database) => ownedRecords(database, TeamMemberSchema);

/** A contact's addresses, for a `contact:<id>:email|phone` recipient. */
export function contactAddresses(db: Sql, accountId: string, id: string) {
  return db
    .selectFrom('contacts')
    .select(['name', 'email', 'phone'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A notification channel's webhook, for a `channel:<id>` recipient. */
export function channelWebhook(db: Sql, accountId: string, id: string) {
  return db
    .selectFrom('notification_channels')
    .select(['name', 'type', 'webhook_url', 'slack_channel_id'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A team member's addresses and push subscriptions, for a team-member recipient. */
export function teamMemberAddresses(db: Sql, accountId: string, id: string) {
  return db
    .selectFrom('team_members')
    .select(['name', 'email', 'phone', 'push_subscriptions'])
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/**
 * The contact or team member whose stored email or phone is exactly `address` (an anonymous value may name a
 * recipient only this way, so an anonymous caller never chooses who approves). Team members first; null when none.
 */
export async function directoryEntryByAddress(
  db: Sql,
  accountId: string,
  address: string,
): Promise<{ kind: 'team_member' | 'contact'; id: string; field: 'email' | 'phone' } | null> {
  for (const table of ['team_members', 'contacts'] as const) {
    const row = await db
      .selectFrom(table)
      .select(['id', 'email', 'phone'])
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('email', '=', address), eb('phone', '=', address)]))
      .orderBy('created_at')
      .executeTakeFirst();
    if (row) {
      return {
        kind: table === 'contacts' ? 'contact' : 'team_member',
        id: row.id,
        field: row.email === address ? 'email' : 'phone',
      };
    }
  }
  return null;
}

/** Serialises team-member creates per account until the transaction ends, so racing creates cannot pass the limit. */
export async function lockTeamMemberCount(db: Sql, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:team_members`}, 0))`.execute(db);
}
