import { sql } from 'kysely';
import { hostOfOrigin } from '../domain/destinations/origin.js';
import type { Sql } from './database.js';

// The origins each account's actions aim at (`action_origins`, entities/destination.ts): added by the create's insert,
// removed by retention with the last action to them, read by the destinations list.

/**
 * The part of an insert's WITH that adds the origins of the rows of `rows` (a CTE answering `account_id` and
 * `destination_origin`) their accounts have no row for. In one order, so that two creates adding the same two origins
 * never wait on each other crosswise; an origin already there costs a look-up in the key and writes nothing.
 */
export function registerOriginsOf(rows: string): string {
  return `origins as (
     insert into action_origins (account_id, origin)
     select distinct account_id, destination_origin from ${rows} where destination_origin is not null
      order by account_id, destination_origin
     on conflict do nothing)`;
}

/** The origins with their hosts, as the rows of `d(origin, host)`: what the host index of `actions` is probed with. */
export const originsWithHosts = (origins: readonly string[]) =>
  sql`unnest(${origins}::text[], ${origins.map(hostOfOrigin)}::text[]) as d(origin, host)`;

/**
 * Adds the rows of those of `origins` the account has none of (those `where` keeps, when given), in one statement and
 * one order.
 */
function insertOrigins(db: Sql, accountId: string, origins: readonly string[], where = sql`true`) {
  return sql`
    insert into action_origins (account_id, origin)
    select distinct ${accountId}::uuid, d.origin from ${originsWithHosts(origins)} where ${where} order by 2
    on conflict do nothing`.execute(db);
}

/**
 * Adds the rows of those of `origins` the account has none of: a transaction that writes several actions one by one
 * (a batch's keyed items) calls it first, so that its inserts then find every row there, and two such transactions
 * sharing new origins wait on each other in one order, never crosswise.
 */
export async function registerOrigins(db: Sql, accountId: string, origins: readonly string[]): Promise<void> {
  if (origins.length > 0) await insertOrigins(db, accountId, origins);
}

/** The account's origins, in order. */
export async function registeredOrigins(db: Sql, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('action_origins')
    .select('origin')
    .where('account_id', '=', accountId)
    .orderBy('origin')
    .execute();
  return rows.map((r) => r.origin);
}

/**
 * The newest of the account's actions that aims at the row `d`'s origin, null when none does: through the account's
 * host index read newest first, since retention has just deleted the oldest, whose entries the index keeps until the
 * next vacuum. A scalar read, not `exists`, which the planner would turn into a join reading the index oldest first.
 */
const newestAimedAt = (accountId: string) => sql`(
  select a.id from actions a
   where a.account_id = ${accountId} and a.destination_host = d.host and a.destination_origin = d.origin
   order by a.created_at desc limit 1)`;

/**
 * Removes those of `origins` none of the account's actions aims at any more (retention deleted the last); answers
 * them. A create adding an action to one of them at that moment may have found the row still there and added none:
 * `restoreOriginsInUse`, once the transactions running now have ended, puts such a row back.
 */
export async function pruneOrigins(
  db: Sql,
  accountId: string,
  origins: readonly string[],
): Promise<string[]> {
  if (origins.length === 0) return [];
  const { rows } = await sql<{ origin: string }>`
    delete from action_origins o using ${originsWithHosts(origins)}
     where o.account_id = ${accountId} and o.origin = d.origin and ${newestAimedAt(accountId)} is null
    returning o.origin`.execute(db);
  return rows.map((r) => r.origin);
}

/** Adds back those of `origins` that one of the account's actions aims at (see `pruneOrigins`). */
export async function restoreOriginsInUse(
  db: Sql,
  accountId: string,
  origins: readonly string[],
): Promise<void> {
  if (origins.length > 0)
    await insertOrigins(db, accountId, origins, sql`${newestAimedAt(accountId)} is not null`);
}
