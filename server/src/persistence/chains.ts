import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { ChainState, StepStatus } from '@sched/contract';
import { accountSigningSecretQuery } from './accounts.js';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';
import { CHAIN_DUE_CHANNEL } from './entities/action.js';

export { CHAIN_DUE_CHANNEL };

// A literal, as the partial index `chain_steps_running_index` states it: a generic plan can still use that index.
const RUNNING = sql.lit('running' satisfies StepStatus);

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
): Promise<Listing<ChainRow>> {
  let q = db.selectFrom('chains').where('account_id', '=', accountId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirstPage(db, q, page);
}

/**
 * Chains whose running step is due: its delay has elapsed, or its action reached a final state (a trigger on
 * `actions` sets the step's `due_at` in that same transaction; migration ChainStepSettled). This is the engine's
 * durable trigger: nothing is lost between the action's transaction and the chain's, whatever crashes. The same
 * statement answers the earliest due time still ahead (a delay, a put-off chain), so the scan can wake for it.
 */
export async function chainsToAdvance(
  db: Sql,
  now: Date,
  limit: number,
): Promise<{ chainIds: string[]; nextDue: Date | null }> {
  const { rows } = await sql<{ chain_id: string; due_at: Date }>`
    (select chain_id, due_at from chain_steps where status = ${RUNNING} and due_at <= ${now}
      order by due_at limit ${sql.lit(limit)})
    union all
    (select chain_id, due_at from chain_steps where status = ${RUNNING} and due_at > ${now}
      order by due_at limit 1)`.execute(db);
  const ahead = rows.find((r) => r.due_at > now);
  return {
    chainIds: rows.filter((r) => r.due_at <= now).map((r) => r.chain_id),
    nextDue: ahead?.due_at ?? null,
  };
}

/**
 * Tells listening workers that a chain's step falls due at `dueAt` (a delay step started): `chainId,dueMs` on the
 * chain channel, delivered at the caller's commit, so a worker wakes for it on time rather than at its next scan.
 */
export async function announceChainDue(db: Sql, chainId: string, dueAt: Date): Promise<void> {
  await sql`select pg_notify(${CHAIN_DUE_CHANNEL}, ${`${chainId},${dueAt.getTime()}`})`.execute(db);
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

/** Keeps the whole response body of a chain step's successful HTTP call, for `{{steps.N.response...}}`. */
export async function recordStepResponse(db: Sql, actionId: string, body: string): Promise<void> {
  await db.updateTable('chain_steps').set({ response: body }).where('action_id', '=', actionId).execute();
}
