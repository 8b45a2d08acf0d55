import type { TemplateType } from '@sched/contract';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Plan } from '../domain/quota/plans.js';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';

/** A `templates` row, typed from the entity (persistence/entities/template.ts). */
export type TemplateRow = Selectable<Tables['templates']>;
export type NewTemplate = Insertable<Tables['templates']>;
export type TemplateChanges = Updateable<Tables['templates']> & { updated_at: Date };

// Every query of the API names the account; only the trigger finds a template by its token's hash.

/** pg sends a JS array as a PostgreSQL array; the jsonb columns holding arrays must go as JSON text. */
function jsonArrays<T extends { placeholders?: unknown; chain_steps?: unknown }>(values: T): T {
  const out = { ...values };
  if (Array.isArray(out.placeholders)) out.placeholders = JSON.stringify(out.placeholders);
  if (Array.isArray(out.chain_steps)) out.chain_steps = JSON.stringify(out.chain_steps);
  return out;
}

export async function insertTemplate(db: Sql, t: NewTemplate): Promise<TemplateRow> {
  return db.insertInto('templates').values(jsonArrays(t)).returningAll().executeTakeFirstOrThrow();
}

export async function findTemplate(
  db: Sql,
  accountId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<TemplateRow | null> {
  const q = db.selectFrom('templates').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  return (await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/**
 * The active template whose token hashes to `tokenHash`, with its account's plan. One indexed equality lookup of a
 * hash: an unknown, regenerated, deleted or inactive token all take the same path and answer null.
 */
export async function findActiveByTokenHash(
  db: Sql,
  tokenHash: string,
): Promise<(TemplateRow & { plan: Plan; rate_limit_factor: number }) | null> {
  const row = await db
    .selectFrom('templates')
    .innerJoin('accounts', 'accounts.id', 'templates.account_id')
    .selectAll('templates')
    .select(['accounts.plan', 'accounts.rate_limit_factor'])
    .where('templates.token_hash', '=', tokenHash)
    .where('templates.is_active', '=', true)
    .executeTakeFirst();
  return row ? { ...row, rate_limit_factor: Number(row.rate_limit_factor) } : null;
}

export async function listTemplates(
  db: Sql,
  accountId: string,
  f: { type?: TemplateType },
  page: { limit: number; offset: number },
): Promise<Listing<TemplateRow>> {
  let q = db.selectFrom('templates').where('account_id', '=', accountId);
  if (f.type) q = q.where('type', '=', f.type);
  return newestFirstPage(db, q, page);
}

export async function countTemplates(db: Sql, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('templates')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Serialises template creation per account until the transaction ends, so racing creates cannot pass the limit. */
export async function lockTemplateCount(db: Sql, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:templates`}, 0))`.execute(db);
}

export async function updateTemplate(
  db: Sql,
  accountId: string,
  id: string,
  changes: TemplateChanges,
): Promise<TemplateRow | null> {
  const row = await db
    .updateTable('templates')
    .set(jsonArrays(changes))
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function deleteTemplate(db: Sql, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('templates')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Counts a trigger that created something. */
export async function recordTrigger(db: Sql, id: string, now: Date): Promise<void> {
  await db
    .updateTable('templates')
    .set((eb) => ({ trigger_count: eb('trigger_count', '+', 1), last_triggered_at: now }))
    .where('id', '=', id)
    .execute();
}

/** Counts a trigger refused for its values (422), with the reason. */
export async function recordFailedTrigger(db: Sql, id: string, now: Date, error: string): Promise<void> {
  await db
    .updateTable('templates')
    .set((eb) => ({
      failed_trigger_count: eb('failed_trigger_count', '+', 1),
      last_failed_at: now,
      last_error: error,
    }))
    .where('id', '=', id)
    .execute();
}
