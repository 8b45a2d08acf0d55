import type { BulkItemOutcome, BulkOperationKind, BulkOperationState } from '@sched/contract';
import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { ActionState } from '../domain/action/states.js';
import { type ActionFilter, matchingActions } from './actions.js';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';

export type BulkOperationRow = Selectable<Tables['bulk_operations']>;

const RUNNING: BulkOperationState = 'running';

/** What a bulk operation matches: a filter, or ids (both within one account, chain steps excluded). */
export type BulkTarget = { filter: ActionFilter } | { ids: readonly string[] };

function targeted(db: Sql, accountId: string, target: BulkTarget, now: Date) {
  if ('filter' in target) return matchingActions(db, accountId, target.filter, now);
  const all = matchingActions(db, accountId, {}, now);
  return target.ids.length === 0 ? all.where(sql<boolean>`false`) : all.where('id', 'in', [...target.ids]);
}

/** A dry run's counts: matched actions grouped by status and whether they carry a request. */
export async function countByStatus(
  db: Sql,
  accountId: string,
  target: BulkTarget,
  now: Date,
): Promise<{ status: ActionState; hasRequest: boolean; count: number }[]> {
  const rows = await targeted(db, accountId, target, now)
    .select((eb) => [
      'status',
      sql<boolean>`request is not null`.as('has_request'),
      eb.fn.countAll<string>().as('count'),
    ])
    .groupBy(['status', sql`request is not null`])
    .execute();
  return rows.map((r) => ({ status: r.status, hasRequest: r.has_request, count: Number(r.count) }));
}

/** Up to `limit` matched actions in the given states, newest first. */
export async function sampleIds(
  db: Sql,
  accountId: string,
  target: BulkTarget,
  eligible: { states: readonly ActionState[]; needsRequest: boolean },
  limit: number,
  now: Date,
): Promise<string[]> {
  if (eligible.states.length === 0) return [];
  let q = targeted(db, accountId, target, now)
    .select('id')
    .where('status', 'in', [...eligible.states]);
  if (eligible.needsRequest) q = q.where('request', 'is not', null);
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => r.id);
}

/**
 * The snapshot of a large match is one deliberate statement that grows with it (about 1 s per 100,000 ids on a
 * quiet 2-core machine, several under load): it runs under this statement timeout instead of the service's
 * request-sized one (SCHED_DB_STATEMENT_TIMEOUT_MS), which would answer 503 for every operation past a few tens of
 * thousands of actions. Measured in docs/performance.md (bench/bulk-cancel.mjs).
 */
const SNAPSHOT_TIMEOUT_MS = 120_000;

/**
 * How many operations of the account are running, under a lock of the account's starts held to the end of the
 * caller's transaction: two starts cannot both see room for one.
 */
export async function lockAndCountRunning(db: Sql, accountId: string): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:bulk_operations`}, 0))`.execute(db);
  const row = await db
    .selectFrom('bulk_operations')
    .select((eb) => eb.fn.countAll<number>().as('running'))
    .where('account_id', '=', accountId)
    .where('status', '=', RUNNING)
    .executeTakeFirstOrThrow();
  return Number(row.running);
}

/**
 * Creates a running operation and snapshots the ids it matches now into its items, in the caller's transaction:
 * actions created later are never part of it. Answers the row with `matched` set.
 */
export async function startBulkOperation(
  db: Sql,
  op: {
    id: string;
    accountId: string;
    operation: BulkOperationKind;
    filter: Record<string, unknown> | null;
    options: Record<string, unknown> | null;
    note: string | null;
    now: Date;
  },
  target: BulkTarget,
): Promise<BulkOperationRow> {
  // `set local` ends with the caller's transaction, so the pooled connection goes back with the usual timeout.
  await sql`select set_config('statement_timeout', ${String(SNAPSHOT_TIMEOUT_MS)}, true)`.execute(db);
  await db
    .insertInto('bulk_operations')
    .values({
      id: op.id,
      account_id: op.accountId,
      operation: op.operation,
      status: RUNNING,
      filter: op.filter === null ? null : sql`${JSON.stringify(op.filter)}::jsonb`,
      options: op.options === null ? null : sql`${JSON.stringify(op.options)}::jsonb`,
      note: op.note,
      created_at: op.now,
      updated_at: op.now,
    })
    .execute();
  const inserted = await db
    .insertInto('bulk_operation_items')
    .columns(['operation_id', 'action_id'])
    .expression(
      targeted(db, op.accountId, target, op.now).select([
        sql<string>`${op.id}::uuid`.as('operation_id'),
        'id',
      ]),
    )
    .executeTakeFirst();
  return db
    .updateTable('bulk_operations')
    .set({ matched: Number(inserted.numInsertedOrUpdatedRows ?? 0) })
    .where('id', '=', op.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findBulkOperation(
  db: Sql,
  accountId: string,
  id: string,
): Promise<BulkOperationRow | null> {
  return (
    (await db
      .selectFrom('bulk_operations')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()) ?? null
  );
}

export async function listBulkOperations(
  db: Sql,
  accountId: string,
  f: { status?: BulkOperationState },
  page: { limit: number; offset: number },
): Promise<Listing<BulkOperationRow>> {
  let q = db.selectFrom('bulk_operations').where('account_id', '=', accountId);
  if (f.status) q = q.where('status', '=', f.status);
  return newestFirstPage(db, q, page);
}

/** Ends a running operation as `stopped`; null when it is not running (or not the account's). */
export async function stopBulkOperation(
  db: Sql,
  accountId: string,
  id: string,
  now: Date,
): Promise<BulkOperationRow | null> {
  return (
    (await db
      .updateTable('bulk_operations')
      .set({ status: 'stopped', finished_at: now, updated_at: now, lease_until: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', RUNNING)
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}

/**
 * Takes the lease of a running operation when nobody holds it (or the holder's lease ran out): the worker that
 * gets the row runs it. Null when it is held, finished or stopped.
 */
export async function takeBulkLease(
  db: Sql,
  id: string,
  c: { now: Date; until: Date },
): Promise<BulkOperationRow | null> {
  return (
    (await db
      .updateTable('bulk_operations')
      .set({ lease_until: c.until })
      .where('id', '=', id)
      .where('status', '=', RUNNING)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', c.now)]))
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}

/**
 * Running operations nobody holds (a new one whose job was lost, or a dead worker's), at most `limit`, and whether any
 * operation is running at all (held or not): with none, nothing can be orphaned before one starts.
 */
export async function orphanedBulkOperations(
  db: Sql,
  now: Date,
  limit = 20,
): Promise<{ orphaned: string[]; running: boolean }> {
  const rows = await db
    .selectFrom('bulk_operations')
    .select((eb) => [
      'id',
      eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]).as('orphaned'),
    ])
    .where('status', '=', RUNNING)
    // The orphaned first (oldest lease first, a released lease among them), then one held, to say one runs.
    .orderBy((eb) => eb.and([eb('lease_until', 'is not', null), eb('lease_until', '>=', now)]))
    .orderBy('lease_until')
    .limit(limit)
    .execute();
  return { orphaned: rows.filter((r) => r.orphaned).map((r) => r.id), running: rows.length > 0 };
}

/** Locks the operation's row for one batch: a stop, or another worker's batch, waits for this one to commit. */
export async function lockBulkOperation(db: Sql, id: string): Promise<BulkOperationRow | null> {
  return (
    (await db
      .selectFrom('bulk_operations')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst()) ?? null
  );
}

/** The next keyset page of unprocessed items, in action id order after the cursor. */
export async function nextBulkItems(
  db: Sql,
  operationId: string,
  cursor: string | null,
  limit: number,
): Promise<string[]> {
  let q = db
    .selectFrom('bulk_operation_items')
    .select('action_id')
    .where('operation_id', '=', operationId)
    .where('outcome', 'is', null);
  if (cursor) q = q.where('action_id', '>', cursor);
  const rows = await q.orderBy('action_id').limit(limit).execute();
  return rows.map((r) => r.action_id);
}

/**
 * Marks a batch's items done with their outcomes, in the transaction that changed their actions; an item already
 * done is left as it is. Answers the counts of the items this call marked.
 */
export async function markBulkItems(
  db: Sql,
  operationId: string,
  results: readonly { actionId: string; outcome: BulkItemOutcome; detail: string | null }[],
  now: Date,
): Promise<Record<BulkItemOutcome, number>> {
  const counts: Record<BulkItemOutcome, number> = { affected: 0, skipped: 0, failed: 0 };
  if (results.length === 0) return counts;
  const marked = await sql<{ outcome: BulkItemOutcome }>`
    update bulk_operation_items i set outcome = v.outcome, detail = v.detail, processed_at = ${now}
      from unnest(${results.map((r) => r.actionId)}::uuid[], ${results.map((r) => r.outcome)}::text[],
                  ${results.map((r) => r.detail)}::text[]) as v(action_id, outcome, detail)
     where i.operation_id = ${operationId} and i.action_id = v.action_id and i.outcome is null
    returning i.outcome`.execute(db);
  for (const r of marked.rows) counts[r.outcome] += 1;
  return counts;
}

/** Adds a batch's counts, moves the cursor and renews the lease, in the batch's transaction. */
export async function advanceBulkOperation(
  db: Sql,
  id: string,
  c: {
    counts: Record<BulkItemOutcome, number>;
    cursor: string;
    leaseUntil: Date;
    now: Date;
  },
): Promise<void> {
  const n = c.counts.affected + c.counts.skipped + c.counts.failed;
  await db
    .updateTable('bulk_operations')
    .set((eb) => ({
      processed: eb('processed', '+', n),
      affected: eb('affected', '+', c.counts.affected),
      skipped: eb('skipped', '+', c.counts.skipped),
      failed: eb('failed', '+', c.counts.failed),
      cursor: c.cursor,
      lease_until: c.leaseUntil,
      updated_at: c.now,
    }))
    .where('id', '=', id)
    .execute();
}

export async function completeBulkOperation(db: Sql, id: string, now: Date): Promise<void> {
  await db
    .updateTable('bulk_operations')
    .set({ status: 'completed', finished_at: now, updated_at: now, lease_until: null })
    .where('id', '=', id)
    .where('status', '=', RUNNING)
    .execute();
}

/** Lets another worker take a running operation at once (this one ran out of its time budget). */
export async function releaseBulkLease(db: Sql, id: string): Promise<void> {
  await db.updateTable('bulk_operations').set({ lease_until: null }).where('id', '=', id).execute();
}

/** The bulk operations that processed one action, in order: its timeline. */
export async function bulkEventsOf(db: Sql, actionId: string) {
  const rows = await db
    .selectFrom('bulk_operation_items as i')
    .innerJoin('bulk_operations as o', 'o.id', 'i.operation_id')
    .select(['o.id', 'o.operation', 'o.note', 'i.outcome', 'i.detail', 'i.processed_at'])
    .where('i.action_id', '=', actionId)
    .where('i.outcome', 'is not', null)
    .orderBy('i.processed_at')
    .execute();
  return rows.map((r) => ({
    bulk_operation_id: r.id,
    operation: r.operation,
    outcome: r.outcome!,
    detail: r.detail,
    note: r.note,
    at: r.processed_at!.toISOString(),
  }));
}

/** The account's plan, for the creates of a bulk replay (run by the worker, without a request's principal). */
export async function planOf(db: Sql, accountId: string) {
  const row = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  return row?.plan ?? null;
}
