import { type Selectable, sql } from 'kysely';
import {
  type AuditActor,
  type AuditEventBody,
  actionPatternToLike,
  auditHash,
  GENESIS_HASH,
} from '../domain/audit/chain.js';
import type { Plan } from '../domain/quota/plans.js';
import { fixedStatement, type Sql, type Tables } from './database.js';
import { timeOrderedId } from './ids.js';

export type AuditEventRow = Selectable<Tables['audit_events']>;

/** An event to append; seq, id, prev_hash and hash are the chain's. */
export interface NewAuditEvent {
  at: Date;
  action: string;
  actor: AuditActor;
  resource: { type: string; id: string };
  channel?: string | undefined;
  ip?: string | undefined;
  user_agent?: string | undefined;
  request_id?: string | undefined;
  details: Record<string, unknown>;
}

/** A row as it is hashed and served. */
export function auditEventBody(r: AuditEventRow): AuditEventBody {
  return {
    seq: r.seq,
    id: r.id,
    at: r.at.toISOString(),
    action: r.action,
    actor: { type: r.actor_type, id: r.actor_id, ...(r.actor_email ? { email: r.actor_email } : {}) },
    resource: { type: r.resource_type, id: r.resource_id },
    ...(r.channel ? { channel: r.channel } : {}),
    ...(r.ip ? { ip: r.ip } : {}),
    ...(r.user_agent ? { user_agent: r.user_agent } : {}),
    ...(r.request_id ? { request_id: r.request_id } : {}),
    details: r.details,
  };
}

/** An event to append, with its account. */
export type PendingAuditEvent = NewAuditEvent & { accountId: string };

/** The pending rows as the one JSON parameter of their insert (the request's fields cut to their columns). */
export function pendingAuditJson(events: readonly PendingAuditEvent[]): string {
  return JSON.stringify(
    events.map((e) => ({
      account_id: e.accountId,
      at: e.at.toISOString(),
      action: e.action,
      actor_type: e.actor.type,
      actor_id: e.actor.id,
      actor_email: e.actor.email ?? null,
      resource_type: e.resource.type,
      resource_id: e.resource.id,
      channel: e.channel ?? null,
      ip: e.ip?.slice(0, 64) ?? null,
      user_agent: e.user_agent?.slice(0, 512) ?? null,
      request_id: e.request_id?.slice(0, 128) ?? null,
      details: e.details,
    })),
  );
}

const PENDING_COLUMNS = [
  'account_id',
  'at',
  'action',
  'actor_type',
  'actor_id',
  'actor_email',
  'resource_type',
  'resource_id',
  'channel',
  'ip',
  'user_agent',
  'request_id',
  'details',
].join(', ');

const insertPendingStatement = fixedStatement<unknown>(pendingAuditInsert('$1'));

/**
 * Writes events in the caller's transaction, in one statement and without a lock of the log: they commit with the
 * change or not at all, and are chained a moment later by `sealAuditEvents`.
 */
export async function insertPendingAuditEvents(db: Sql, events: readonly PendingAuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  await insertPendingStatement(db, [pendingAuditJson(events)]);
}

/**
 * The insert of pending events from the JSON parameter `param` (`pendingAuditJson`), for a statement that writes
 * its change beside them (persistence/actions.ts `insertActionsWithAudit`).
 */
export function pendingAuditInsert(param: string): string {
  return `insert into audit_pending (${PENDING_COLUMNS})
   select ${PENDING_COLUMNS} from json_populate_recordset(null::audit_pending, ${param}::json)`;
}

/**
 * Chains an account's pending events, oldest first, at most `limit`: takes the head row (an upsert that locks it
 * until the transaction ends, so sealers of one account queue up and the chain has no forks), numbers and hashes
 * the events from it, inserts them into `audit_events`, removes them from `audit_pending` and moves the head. Call
 * it in a transaction of its own; answers how many it chained (`limit` means there may be more).
 */
export async function sealAuditEvents(db: Sql, accountId: string, limit: number): Promise<number> {
  const head = await sql<{ seq: number; hash: string }>`
    insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
    values (${accountId}, 0, ${GENESIS_HASH}, 0, ${GENESIS_HASH})
    on conflict (account_id) do update set seq = audit_heads.seq
    returning seq, hash`.execute(db);
  // Taken off the pending table in the statement that reads them (under the head lock, so no other sealer of the
  // account is between them), oldest first.
  const pending = (await takePendingStatement(db, [accountId, limit])).sort(
    (a, b) => Number(a.n) - Number(b.n),
  );
  if (pending.length === 0) return 0;
  let { seq, hash: prev } = head.rows[0]!;
  const rows = pending.map((e) => {
    seq += 1;
    const body: AuditEventBody = {
      seq,
      id: timeOrderedId(),
      at: e.at.toISOString(),
      action: e.action,
      actor: e.actor_email
        ? { type: e.actor_type, id: e.actor_id, email: e.actor_email }
        : { type: e.actor_type, id: e.actor_id },
      resource: { type: e.resource_type, id: e.resource_id },
      ...(e.channel ? { channel: e.channel } : {}),
      ...(e.ip ? { ip: e.ip } : {}),
      ...(e.user_agent ? { user_agent: e.user_agent } : {}),
      ...(e.request_id ? { request_id: e.request_id } : {}),
      details: e.details,
    };
    const hash = auditHash(prev, body);
    const row = { ...auditRowOf(accountId, body), prev_hash: prev, hash };
    prev = hash;
    return row;
  });
  await insertSealedStatement(db, [JSON.stringify(rows)]);
  await db.updateTable('audit_heads').set({ seq, hash: prev }).where('account_id', '=', accountId).execute();
  return pending.length;
}

const takePendingStatement = fixedStatement<Selectable<Tables['audit_pending']>>(
  `delete from audit_pending where n in (
     select n from audit_pending where account_id = $1 order by n limit $2 for update)
   returning *`,
);

const SEALED_COLUMNS = [
  'account_id',
  'seq',
  'id',
  'at',
  'action',
  'actor_type',
  'actor_id',
  'actor_email',
  'resource_type',
  'resource_id',
  'channel',
  'ip',
  'user_agent',
  'request_id',
  'details',
  'prev_hash',
  'hash',
].join(', ');
const insertSealedStatement = fixedStatement<unknown>(
  `insert into audit_events (${SEALED_COLUMNS})
   select ${SEALED_COLUMNS} from json_populate_recordset(null::audit_events, $1::json)`,
);

/** An event's columns, as `auditEventBody` reads them back. */
function auditRowOf(accountId: string, b: AuditEventBody) {
  return {
    account_id: accountId,
    seq: b.seq,
    id: b.id,
    at: b.at,
    action: b.action,
    actor_type: b.actor.type,
    actor_id: b.actor.id,
    actor_email: b.actor.email ?? null,
    resource_type: b.resource.type,
    resource_id: b.resource.id,
    channel: b.channel ?? null,
    ip: b.ip ?? null,
    user_agent: b.user_agent ?? null,
    request_id: b.request_id ?? null,
    details: b.details,
  };
}

/** Accounts with events waiting to be chained, at most `limit` (the sealer's scan). */
export async function accountsWithPendingAudit(db: Sql, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('audit_pending').select('account_id').distinct().limit(limit).execute();
  return rows.map((r) => r.account_id);
}

export interface AuditFilter {
  resourceId?: string | undefined;
  /** An action name, `*` matching any run of characters. */
  action?: string | undefined;
  actorType?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Events after `afterSeq`, oldest first, at most `limit` (keyset pagination over the account's seq). */
export function auditEventsPage(
  db: Sql,
  accountId: string,
  filter: AuditFilter,
  page: { afterSeq: number; limit: number },
): Promise<AuditEventRow[]> {
  let q = db
    .selectFrom('audit_events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('seq', '>', page.afterSeq);
  if (filter.resourceId) q = q.where('resource_id', '=', filter.resourceId);
  if (filter.action)
    q = filter.action.includes('*')
      ? q.where(sql<boolean>`action like ${actionPatternToLike(filter.action)}`)
      : q.where('action', '=', filter.action);
  if (filter.actorType) q = q.where('actor_type', '=', filter.actorType as AuditEventRow['actor_type']);
  if (filter.from) q = q.where('at', '>=', filter.from);
  if (filter.to) q = q.where('at', '<', filter.to);
  return q.orderBy('seq').limit(page.limit).execute();
}

/** Where an account's chain starts: the genesis hash, or the last hash retention dropped. */
export async function auditAnchor(db: Sql, accountId: string): Promise<{ seq: number; hash: string }> {
  const head = await db
    .selectFrom('audit_heads')
    .select(['anchor_seq', 'anchor_hash'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return head ? { seq: head.anchor_seq, hash: head.anchor_hash } : { seq: 0, hash: GENESIS_HASH };
}

/**
 * Retention's one way to remove events: the whole prefix of an account's chain up to `throughSeq`, keeping the last
 * dropped hash as the new anchor. The trigger lets the DELETE through only with `sched.audit_retention` set for
 * this transaction, and only for events at or before the anchor, which is moved first (the head row it updates is
 * locked until the transaction ends, so appends of the account wait for the drop).
 */
export async function dropAuditPrefix(db: Sql, accountId: string, throughSeq: number): Promise<number> {
  const last = await db
    .selectFrom('audit_events')
    .select(['seq', 'hash'])
    .where('account_id', '=', accountId)
    .where('seq', '<=', throughSeq)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return 0;
  await db
    .updateTable('audit_heads')
    .set({ anchor_seq: last.seq, anchor_hash: last.hash })
    .where('account_id', '=', accountId)
    .execute();
  await sql`select set_config('sched.audit_retention', 'prefix', true)`.execute(db);
  const dropped = await db
    .deleteFrom('audit_events')
    .where('account_id', '=', accountId)
    .where('seq', '<=', last.seq)
    .executeTakeFirst();
  await sql`select set_config('sched.audit_retention', '', true)`.execute(db);
  return Number(dropped.numDeletedRows);
}

const planAccounts = (db: Sql, plan: Plan) => db.selectFrom('accounts').select('id').where('plan', '=', plan);

/**
 * Where retention cuts an account's chain next: one account of the plan with events older than
 * `cutoff` whose head no other transaction holds, and the seq of the last event to drop: the newest event older than
 * the cutoff, at most `limit` past the current anchor (so one transaction removes a bounded batch). Null when none.
 */
export async function nextAuditPrefix(
  db: Sql,
  plan: Plan,
  cutoff: Date,
  limit: number,
): Promise<{ accountId: string; throughSeq: number } | null> {
  const head = await db
    .selectFrom('audit_heads as h')
    .select(['h.account_id', 'h.anchor_seq'])
    .where('h.account_id', 'in', planAccounts(db, plan))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('audit_events as e')
          .select('e.seq')
          .whereRef('e.account_id', '=', 'h.account_id')
          .where('e.at', '<', cutoff),
      ),
    )
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (!head) return null;
  const last = await db
    .selectFrom('audit_events')
    .select('seq')
    .where('account_id', '=', head.account_id)
    .where('at', '<', cutoff)
    .orderBy('at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return { accountId: head.account_id, throughSeq: Math.min(last.seq, head.anchor_seq + limit) };
}

/** Events of the plan's accounts older than `cutoff`: what retention would drop now (`sched purge --dry-run`). */
export async function countAuditEventsBefore(db: Sql, plan: Plan, cutoff: Date): Promise<number> {
  const row = await db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', 'in', planAccounts(db, plan))
    .where('at', '<', cutoff)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
