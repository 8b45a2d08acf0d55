import type { Selectable, Updateable } from 'kysely';
import type { ActionMode, ErrorClass } from '@sched/contract';
import { sql } from 'kysely';
import { type ActionState, LIVE_STATES, phaseOf } from '../domain/action/states.js';
import type { StatusCodeFilter } from '../domain/delivery/error-class.js';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';
import { dueOrInFlightAt } from './due-index.js';
import { failedInboxTotal } from './failed-inbox.js';

/** An `actions` row, typed from the entity (persistence/entities/action.ts). */
export type ActionRow = Selectable<Tables['actions']>;
/** A `delivery_attempts` row. */
export type DeliveryAttemptRow = Selectable<Tables['delivery_attempts']>;
/** Columns an update may change; `updated_at` comes from the caller's clock. */
export type ActionChanges = Updateable<Tables['actions']> & { updated_at: Date };

const FAILED: ActionState = 'failed';
const EXECUTING: ActionState = 'executing';

// Every query of the API names the account, so tenancy cannot be forgotten; the delivery side works by id.

export { insertAction, insertActionsWithAudit, type NewAction } from './action-insert.js';

export async function findAction(
  db: Sql,
  accountId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ActionRow | null> {
  const q = db.selectFrom('actions').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  return (await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

/** The newest action holding an idempotency key; with `liveOnly`, the newest one still live (spec's live set). */
export async function findByIdempotencyKey(
  db: Sql,
  accountId: string,
  key: string,
  opts: { liveOnly: boolean },
): Promise<ActionRow | null> {
  let q = db
    .selectFrom('actions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key);
  if (opts.liveOnly) q = q.where('status', 'in', LIVE_STATES);
  return (await q.orderBy('created_at', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** Actions sharing at least one dedup key, newest first. */
export async function actionsSharingKeys(
  db: Sql,
  accountId: string,
  keys: string[],
  opts: { liveOnly?: boolean; excludeId?: string } = {},
) {
  let q = db
    .selectFrom('actions')
    .select(['id', 'name', 'status', 'created_at'])
    .where('account_id', '=', accountId)
    // The condition of the partial index actions_dedup_keys_index, spelled as it is: the planner matches the text.
    .where(sql<boolean>`dedup_keys <> '{}' and dedup_keys && ${keys}::text[]`);
  if (opts.liveOnly) q = q.where('status', 'in', LIVE_STATES);
  if (opts.excludeId) q = q.where('id', '<>', opts.excludeId);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** Serialises work on one account-scoped name (an idempotency key, a dedup key) until the transaction ends. */
export async function lockName(db: Sql, accountId: string, kind: string, value: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:${kind}:${value}`}, 0))`.execute(
    db,
  );
}

export interface ActionFilter {
  status?: ActionState;
  mode?: ActionMode;
  /** Matched against name and description, case-insensitively, as a plain substring. */
  search?: string;
  dedupKey?: string;
  recurring?: boolean;
  /** The failed-delivery inbox. */
  destinationHost?: string;
  /** An origin and its host: the host names the index to read. */
  destinationOrigin?: { origin: string; host: string };
  lastStatusCode?: StatusCodeFilter;
  errorClass?: ErrorClass;
  failedAfter?: Date;
  failedBefore?: Date;
  createdAfter?: Date;
  createdBefore?: Date;
  scheduledAfter?: Date;
  scheduledBefore?: Date;
}

/**
 * The actions a filter matches in one account (chain steps excluded) at `now`: the list, the overview and bulk
 * operations share it.
 */
export function matchingActions(db: Sql, accountId: string, f: ActionFilter, now: Date) {
  // A chain's step actions are read through the chain (and by id), not listed.
  let q = db.selectFrom('actions').where('account_id', '=', accountId).where('chain_id', 'is', null);
  // The phase is what the account's index reads (entities/action.ts). Outside the pending phase a state is its own
  // phase, so the status is not asked of the row: a count of the failed inbox then reads the index alone, never the
  // heap. Within the pending phase the status is checked row by row.
  if (f.status) {
    const phase = phaseOf(f.status);
    q = q.where('phase', '=', phase);
    if (phase !== f.status) q = q.where('status', '=', f.status);
    // Among millions waiting for their time, the few in flight are found through the due index, which holds each.
    if (f.status === EXECUTING) q = q.where(dueOrInFlightAt(now));
  }
  if (f.mode) q = q.where('mode', '=', f.mode);
  if (f.search) {
    const pattern = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  if (f.dedupKey)
    q = q.where(sql<boolean>`dedup_keys <> '{}' and dedup_keys @> array[${f.dedupKey}]::text[]`);
  if (f.recurring === true) q = q.where('recurrence', 'is not', null);
  if (f.recurring === false) q = q.where('recurrence', 'is', null);
  if (f.destinationHost) q = q.where('destination_host', '=', f.destinationHost);
  if (f.destinationOrigin)
    q = q
      .where('destination_host', '=', f.destinationOrigin.host)
      .where('destination_origin', '=', f.destinationOrigin.origin);
  const code = f.lastStatusCode;
  if (code) {
    q =
      'exact' in code
        ? q.where('last_status_code', '=', code.exact)
        : q.where('last_status_code', '>=', code.from).where('last_status_code', '<=', code.to);
  }
  if (f.errorClass) q = q.where('last_error_class', '=', f.errorClass);
  // A failed action is not touched again until a retry takes it out of `failed`: its `failed_at` (generated from
  // updated_at while failed) is when it failed, and null for every other state.
  if (f.failedAfter || f.failedBefore) {
    q = q.where('failed_at', 'is not', null);
    if (f.failedAfter) q = q.where('failed_at', '>=', f.failedAfter);
    if (f.failedBefore) q = q.where('failed_at', '<', f.failedBefore);
  }
  if (f.createdAfter) q = q.where('created_at', '>=', f.createdAfter);
  if (f.createdBefore) q = q.where('created_at', '<', f.createdBefore);
  if (f.scheduledAfter) q = q.where('scheduled_for', '>=', f.scheduledAfter);
  if (f.scheduledBefore) q = q.where('scheduled_for', '<', f.scheduledBefore);
  return q;
}

/** One page of an account's actions, newest first, and the total the filter matches. */
export async function listActions(
  db: Sql,
  accountId: string,
  f: ActionFilter,
  page: { limit: number; offset: number },
  now: Date,
): Promise<Listing<ActionRow>> {
  const kept = isFailedInbox(f) ? () => failedInboxTotal(db, accountId) : undefined;
  return newestFirstPage(db, matchingActions(db, accountId, f, now), page, kept);
}

/**
 * The failed inbox as the console opens it, `status=failed` and nothing else: its total is kept by the database
 * (persistence/failed-inbox.ts), the very count `matchingActions` would make. Any other filter is counted.
 */
function isFailedInbox(f: ActionFilter): boolean {
  return f.status === FAILED && Object.entries(f).every(([k, v]) => k === 'status' || v === undefined);
}

/** The ids of the actions replaying one action, oldest first. */
export async function replaysOf(db: Sql, actionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('actions')
    .select('id')
    .where('replay_of', '=', actionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Links a new action to the action it replays (in the transaction that created it). */
export async function markReplay(db: Sql, id: string, replayOf: string): Promise<ActionRow> {
  return db
    .updateTable('actions')
    .set({ replay_of: replayOf })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function coordinationKeys(db: Sql, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom(
      sql<{
        key: string;
      }>`(select distinct unnest(dedup_keys) as key from actions where account_id = ${accountId})`.as('k'),
    )
    .select('k.key')
    .orderBy('k.key')
    .execute();
  return rows.map((r) => r.key);
}

/** Applies a transition's changes to one action; answers the row as it now stands. */
export async function updateAction(db: Sql, id: string, changes: ActionChanges): Promise<ActionRow> {
  return db.updateTable('actions').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Applies the same changes to several actions in one statement (a bulk operation's batch). */
export async function updateActions(db: Sql, ids: readonly string[], changes: ActionChanges): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('actions')
    .set(changes)
    .where('id', 'in', [...ids])
    .execute();
}

/** Locks several actions in id order (so two lockers never deadlock); the rows found, in that order. */
export async function lockActions(db: Sql, ids: readonly string[]): Promise<ActionRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('actions')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Locks one action for a transition; with `skipLocked`, a row another transaction holds answers null. */
export async function lockAction(
  db: Sql,
  id: string,
  opts: { skipLocked?: boolean } = {},
): Promise<ActionRow | null> {
  const q = db.selectFrom('actions').selectAll().where('id', '=', id).forUpdate();
  return (await (opts.skipLocked ? q.skipLocked() : q).executeTakeFirst()) ?? null;
}

/**
 * An action's newest `limit` attempts, newest first; with `before`, those strictly older than it. The keyset is the
 * time-ordered id (an action's attempts are recorded one after another, in the order they start), so a page is a
 * range of the attempt log's primary key (action, id) in each month's partition, and pages stay stable while a
 * series adds attempts. (`before.at` is the cursor's start time, which the order no longer needs.)
 */
export async function attemptPage(
  db: Sql,
  actionId: string,
  c: { limit: number; before?: { at: Date; id: string } | null | undefined },
): Promise<DeliveryAttemptRow[]> {
  let q = db.selectFrom('delivery_attempts').selectAll().where('action_id', '=', actionId);
  if (c.before) q = q.where('id', '<', c.before.id);
  return q.orderBy('id', 'desc').limit(c.limit).execute();
}
