import type { Insertable, Selectable, Updateable } from 'kysely';
import type { ChainState } from '@sched/contract';
import { accountSigningSecretQuery } from './accounts.js';
import { newestFirstPage, type Sql, type Tables } from './database.js';

/** A `chains` row, typed from the entity (persistence/entities/chain.ts). */
export type ChainRow = Selectable<Tables['chains']>;
export type NewChain = Insertable<Tables['chains']>;
export type ChainChanges = Updateable<Tables['chains']> & { updated_at: Date };
/** A `chain_steps` row. */
export type ChainStepRow = Selectable<Tables['chain_steps']>;
export type NewChainStep = Insertable<Tables['chain_steps']>;
export type ChainStepChanges = Updateable<Tables['chain_steps']>;

/** Inserts a chain and its steps; a chain without a secret of its own takes its account's signing secret. */
export async function insertChain(db: Sql, chain: NewChain, steps: NewChainStep[]): Promise<ChainRow> {
  const row = await db
    .insertInto('chains')
    .values({
      ...chain,
      webhook_secret: chain.webhook_secret ?? accountSigningSecretQuery(db, chain.account_id),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db.insertInto('chain_steps').values(steps).execute();
  return row;
}

export async function findChain(
  db: Sql,
  accountId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ChainRow | null> {
  const q = db.selectFrom('chains').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  return (await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** Locks one chain for the engine (which works by id); another engine holding it answers null with `skipLocked`. */
export async function lockChain(
  db: Sql,
  id: string,
  opts: { skipLocked?: boolean } = {},
): Promise<ChainRow | null> {
  const q = db.selectFrom('chains').selectAll().where('id', '=', id).forUpdate();
  return (await (opts.skipLocked ? q.skipLocked() : q).executeTakeFirst()) ?? null;
}

export async function stepsOf(db: Sql, chainId: string): Promise<ChainStepRow[]> {
  return db.selectFrom('chain_steps').selectAll().where('chain_id', '=', chainId).orderBy('index').execute();
}

export async function updateChain(db: Sql, id: string, changes: ChainChanges): Promise<ChainRow> {
  return db.updateTable('chains').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function updateStep(
  db: Sql,
  chainId: string,
  index: number,
  changes: ChainStepChanges,
): Promise<ChainStepRow> {
  return db
    .updateTable('chain_steps')
    .set(changes)
    .where('chain_id', '=', chainId)
    .where('index', '=', index)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One page of an account's chains, newest first, and the total the filter matches. */
export async function listChains(
  db: Sql,
  accountId: string,
  f: { status?: ChainState },
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: ChainRow[] }> {
  let q = db.selectFrom('chains').where('account_id', '=', accountId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirstPage(q, page);
}

/**
 * Chains whose running step is due: its delay has elapsed, or its action reached a final state (a trigger on
 * `actions` sets the step's `due_at` in that same transaction; migration ChainStepSettled). This is the engine's
 * durable trigger: nothing is lost between the action's transaction and the chain's, whatever crashes.
 */
export async function chainsToAdvance(db: Sql, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('chain_steps')
    .select('chain_id')
    .where('status', '=', 'running')
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.chain_id);
}

/**
 * Puts off a chain whose advance failed (a bad one must not hold up the others): its running step, if due, is due again only at `until`, so the scan
 * takes up other chains meanwhile instead of getting the same failing ids back. A settle of its action later marks
 * it due again at once, as usual.
 */
export async function postponeChain(db: Sql, chainId: string, now: Date, until: Date): Promise<void> {
  await db
    .updateTable('chain_steps')
    .set({ due_at: until })
    .where('chain_id', '=', chainId)
    .where('status', '=', 'running')
    .where('due_at', '<=', now)
    .execute();
}

/** A running step looked at too early (its action is live again, e.g. retried): it waits for the next final state. */
export async function clearStepDue(db: Sql, chainId: string, index: number): Promise<void> {
  await db
    .updateTable('chain_steps')
    .set({ due_at: null })
    .where('chain_id', '=', chainId)
    .where('index', '=', index)
    .execute();
}

// The trigger that marks a settled step due is declared with the actions entity, beside its channel.
export { CHAIN_DUE_CHANNEL } from './entities/action.js';

/** Keeps the whole response body of a chain step's successful HTTP call, for `{{steps.N.response...}}`. */
export async function recordStepResponse(db: Sql, actionId: string, body: string): Promise<void> {
  await db.updateTable('chain_steps').set({ response: body }).where('action_id', '=', actionId).execute();
}
