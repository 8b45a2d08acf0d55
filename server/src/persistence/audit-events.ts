import { randomUUID } from 'node:crypto';
import { type Selectable, sql } from 'kysely';
import {
  type AuditActor,
  type AuditEventBody,
  actionPatternToLike,
  canonicalJsonAroundSeq,
  GENESIS_HASH,
} from '../domain/audit/chain.js';
import type { Plan } from '../domain/quota/plans.js';
import { fixedStatement, type Sql, type Tables } from './database.js';

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

/** Events to append to one account's chain, in order. */
export interface AuditGroup {
  accountId: string;
  events: readonly NewAuditEvent[];
}

/**
 * The argument of the database's `audit_append` (migration AuditAppendFunction): per account, in account order (so
 * appends that span accounts take their heads in one order), each event's columns and its canonical JSON cut around
 * the seq the database gives it. An event's id, time and the request's fields are fixed here, before hashing.
 */
export function auditBatchJson(groups: readonly AuditGroup[]): string {
  return JSON.stringify(
    [...groups]
      .filter((g) => g.events.length > 0)
      .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
      .map((g) => ({
        account_id: g.accountId,
        events: g.events.map((e) => {
          const body: Omit<AuditEventBody, 'seq'> = {
            id: randomUUID(),
            at: e.at.toISOString(),
            action: e.action,
            actor: e.actor.email ? e.actor : { type: e.actor.type, id: e.actor.id },
            resource: e.resource,
            ...(e.channel ? { channel: e.channel } : {}),
            ...(e.ip ? { ip: e.ip.slice(0, 64) } : {}),
            ...(e.user_agent ? { user_agent: e.user_agent.slice(0, 512) } : {}),
            ...(e.request_id ? { request_id: e.request_id.slice(0, 128) } : {}),
            details: e.details,
          };
          return {
            ...canonicalJsonAroundSeq(body),
            id: body.id,
            at: body.at,
            action: body.action,
            actor_type: body.actor.type,
            actor_id: body.actor.id,
            actor_email: body.actor.email ?? null,
            resource_type: body.resource.type,
            resource_id: body.resource.id,
            channel: body.channel ?? null,
            ip: body.ip ?? null,
            user_agent: body.user_agent ?? null,
            request_id: body.request_id ?? null,
            details: body.details,
          };
        }),
      })),
  );
}

const appendStatement = fixedStatement<unknown>('select audit_append($1::jsonb)');

/**
 * Appends events to their accounts' chains in the caller's transaction, in one statement: the database takes each
 * account's head row (locked until the transaction ends, so the appends of one account queue up and the chain has no
 * forks), numbers and hashes the events, and moves the head. A rolled-back change leaves no event.
 */
export async function appendAuditBatch(db: Sql, groups: readonly AuditGroup[]): Promise<void> {
  if (!groups.some((g) => g.events.length > 0)) return;
  await appendStatement(db, [auditBatchJson(groups)]);
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
