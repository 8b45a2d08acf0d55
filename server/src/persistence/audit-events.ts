import { wellFormed } from '../domain/text/well-formed.js';
import { type Selectable, sql } from 'kysely';
import {
  type AuditActor,
  type AuditEventBody,
  actionPatternToLike,
  auditEventOfColumns,
  canonicalParts,
  GENESIS_HASH,
} from '../domain/audit/chain.js';
import { ACTION_CREATE_EVENT } from '../domain/audit/details.js';
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
  return { seq: r.seq, ...auditEventOfColumns({ ...r, at: r.at.toISOString() }) };
}

/** An event to append, with its account. */
export type PendingAuditEvent = NewAuditEvent & { accountId: string };

/**
 * The pending rows as the one JSON parameter of their insert: each event's canonical JSON (its id given here, the
 * request's fields cut to their columns' lengths) cut around the `seq` the sealer gives it (domain/audit/chain.ts
 * `canonicalParts`), with its account and its action name (which the insert reads to leave out a data event the
 * account turned off).
 */
export function pendingAuditJson(events: readonly PendingAuditEvent[]): string {
  const text = JSON.stringify(events.map(pendingRow));
  // A lone half of a surrogate pair (a client's string cut mid-character) prints as `\ud83d`, which PostgreSQL's
  // JSON refuses: the change would fail with its event. Rare, so looked for in the printed text, and only then
  // replaced by U+FFFD, as the driver writes it into the change's own columns.
  return LONE_HALF.test(text) ? JSON.stringify(events.map((e) => pendingRow(wellFormed(e)))) : text;
}

const LONE_HALF = /\\ud[89a-f][0-9a-f]{2}/;

function pendingRow(e: PendingAuditEvent) {
  const row = {
    account_id: e.accountId,
    // Known before the chain is: the id is in the hashed text the event is written with.
    id: timeOrderedId(),
    at: e.at.toISOString(),
    action: e.action,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_email: e.actor.email ?? null,
    resource_type: e.resource.type,
    resource_id: e.resource.id,
    channel: e.channel ?? null,
    ip: cut(e.ip, 64),
    user_agent: cut(e.user_agent, 512),
    request_id: cut(e.request_id, 128),
    details: e.details,
  };
  const { head, tail } = canonicalParts(auditEventOfColumns(row));
  return { account_id: e.accountId, action: e.action, canon_head: head, canon_tail: tail };
}

/**
 * `text` cut to its column's length, never between the halves of a surrogate pair (a lone half would be replaced,
 * above).
 */
function cut(text: string | undefined, length: number): string | null {
  if (text === undefined) return null;
  if (text.length <= length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

const PENDING_COLUMNS = 'account_id, canon_head, canon_tail';

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
 * its change beside them (persistence/action-insert.ts `insertActionsWithAudit`). The data event (`action.create`) is kept
 * unless the account turned it off (`accounts.audit_action_create`), read here in the statement that writes
 * it, so no way of creating an action has to know the setting.
 */
export function pendingAuditInsert(param: string): string {
  return `insert into audit_pending (${PENDING_COLUMNS})
   select ${PENDING_COLUMNS}
     from json_to_recordset(${param}::json) r(account_id uuid, action text, canon_head text, canon_tail text)
   where r.action <> '${ACTION_CREATE_EVENT}'
     or exists (select 1 from accounts a where a.id = r.account_id and a.audit_action_create)`;
}

/**
 * Chains an account's pending events, oldest first, at most `limit`, in one statement: the database function
 * `audit_seal` (migration AuditSealInDatabase) locks the account's head row until the statement's transaction ends
 * (sealers of one account queue up, so the chain has no forks), takes the events off `audit_pending`, numbers them
 * from the head, hashes each as `sha256(prev_hash ‖ canon_head ‖ seq ‖ canon_tail)` (the text `canonicalJson`
 * printed when the event was written, `pendingAuditJson`), inserts them into `audit_events` and moves the head. No
 * event travels to the server and back. Answers how many it chained (`limit` means there may be more).
 */
export async function sealAuditEvents(db: Sql, accountId: string, limit: number): Promise<number> {
  const [row] = await sealStatement(db, [accountId, limit]);
  return row?.sealed ?? 0;
}

const sealStatement = fixedStatement<{ sealed: number }>('select audit_seal($1, $2) as sealed');

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

/**
 * Where an account's chain starts (the genesis hash, or the last hash retention dropped) and where its head says it
 * ends (the last event's seq and hash).
 */
export async function auditAnchor(
  db: Sql,
  accountId: string,
): Promise<{ seq: number; hash: string; head: { seq: number; hash: string } }> {
  const head = await db
    .selectFrom('audit_heads')
    .select(['anchor_seq', 'anchor_hash', 'seq', 'hash'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return head
    ? { seq: head.anchor_seq, hash: head.anchor_hash, head: { seq: head.seq, hash: head.hash } }
    : { seq: 0, hash: GENESIS_HASH, head: { seq: 0, hash: GENESIS_HASH } };
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
