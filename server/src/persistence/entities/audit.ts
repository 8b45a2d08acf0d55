import { defineEntity, p, Routine } from '@mikro-orm/core';
import type { AuditActorType } from '../../domain/audit/chain.js';

/**
 * The audit log (docs/audit.md): one hash chain per account, append-only (a trigger refuses UPDATE and DELETE
 * outside retention's prefix drop). No foreign key to the account: the record outlives what it records.
 */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  indexes: [{ properties: ['accountId', 'resourceId', 'seq'] }, { properties: ['accountId', 'at'] }],
  triggers: [
    // Append-only: rewriting or removing an event is refused, except retention's prefix drop, which sets
    // `sched.audit_retention` for its own transaction and may remove only events at or before the chain's anchor,
    // which it moves first to the last dropped event (persistence/audit-events.ts `dropAuditPrefix`): a row past the
    // anchor, or one whose removal the anchor does not cover, cannot be deleted even with the setting.
    {
      name: 'audit_events_append_only',
      timing: 'before',
      events: ['update', 'delete'],
      forEach: 'row',
      body: `if tg_op = 'DELETE' and current_setting('sched.audit_retention', true) = 'prefix' and old.seq <= (select h.anchor_seq from audit_heads h where h.account_id = old.account_id) then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'`,
    },
  ],
  properties: {
    accountId: p.uuid().primary(),
    seq: p.integer().primary(),
    // Unique by construction (a time-ordered UUID): not indexed, so an append writes one index entry less.
    id: p.uuid(),
    at: p.datetime(),
    action: p.string().length(64),
    actorType: p.string().length(16).$type<AuditActorType>(),
    actorId: p.string().length(255),
    actorEmail: p.string().length(320).nullable(),
    resourceType: p.string().length(32),
    resourceId: p.string().length(255),
    channel: p.string().length(16).nullable(),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(512).nullable(),
    requestId: p.string().length(128).nullable(),
    details: p.json<Record<string, unknown>>(),
    prevHash: p.string().length(64),
    hash: p.string().length(64),
  },
});

/**
 * The head of an account's chain: its last seq and hash, locked FOR UPDATE by each append so appends of one account
 * queue up; the anchor is the last hash retention dropped (the first kept event's prev_hash).
 */
export const AuditHeadSchema = defineEntity({
  name: 'AuditHead',
  tableName: 'audit_heads',
  properties: {
    accountId: p.uuid().primary(),
    seq: p.integer().default(0),
    hash: p.string().length(64),
    anchorSeq: p.integer().default(0),
    anchorHash: p.string().length(64),
  },
});

/**
 * Audit events written by their change's transaction and not yet chained (persistence/audit-events.ts): a plain
 * insert, so a change takes no lock of the log and its commit waits for no other. The sealer (the database function
 * `audit_seal`, called by app/audit.ts `AuditSealer`, which the worker runs every second and every read of the log
 * runs first) moves them into `audit_events` in the order it finds them committed, numbering and hashing them under
 * the account's head lock. `n` orders an account's pending events (a sequence: a rolled-back insert leaves a gap
 * here, never in the chain). An event is stored once, as its canonical JSON cut around the `seq` it will get
 * (`canonHead`, `canonTail`: domain/audit/chain.ts `canonicalParts`): the database hashes the very text
 * `canonicalJson` printed, and reads the chained row's columns back out of it.
 */
export const AuditPendingSchema = defineEntity({
  name: 'AuditPending',
  tableName: 'audit_pending',
  properties: {
    // The sealer's one index: an account's events in order.
    accountId: p.uuid().primary(),
    n: p.bigint().autoincrement().primary(),
    canonHead: p.text(),
    canonTail: p.text(),
  },
});

/**
 * One step of an account's chain, the state function of the aggregate `audit_chain` (created by the migration
 * AuditSealInDatabase; an aggregate is not a routine MikroORM knows): the hash of the previous hash (`start`, the
 * head's, for the first event) followed by the event's canonical JSON, `canon_head ‖ seq ‖ canon_tail`.
 */
export const AuditChainStepRoutine = new Routine({
  name: 'audit_chain_step',
  type: 'function',
  language: 'plpgsql',
  deterministic: true,
  params: {
    state: { type: 'text' },
    head: { type: 'text' },
    seq: { type: 'bigint' },
    tail: { type: 'text' },
    start: { type: 'text' },
  },
  returns: { runtimeType: 'string', columnType: 'text' },
  body: `return encode(sha256(convert_to(coalesce(state, start) || head || seq || tail, 'UTF8')), 'hex');`,
});

/**
 * Chains an account's oldest pending events, at most `p_limit`, in one call (persistence/audit-events.ts
 * `sealAuditEvents`); answers how many. The first statement takes the head row's lock (creating the head), so
 * sealers of one account queue and the chain has no forks nor gaps; the second, with a snapshot taken after that
 * wait, takes the events off `audit_pending` (a range of its primary key), numbers them from the head in the order
 * of `n`, hashes each onto the one before (`audit_chain`), appends them to `audit_events` with their columns read
 * out of the canonical JSON, and moves the head.
 * No `--` comments in the body: MikroORM joins its lines.
 */
export const AuditSealRoutine = new Routine({
  name: 'audit_seal',
  type: 'function',
  language: 'sql',
  params: { p_account: { type: 'uuid' }, p_limit: { type: 'integer' } },
  returns: { runtimeType: 'number', columnType: 'integer' },
  body: `insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
  values (p_account, 0, repeat('0', 64), 0, repeat('0', 64))
  on conflict (account_id) do update set seq = audit_heads.seq;
with head as (
  select h.seq, h.hash from audit_heads h where h.account_id = p_account
), taken as (
  delete from audit_pending
  where account_id = p_account and n <= (
    select max(oldest.n) from (
      select p.n from audit_pending p where p.account_id = p_account order by p.n limit p_limit) oldest)
  returning *
), numbered as (
  select taken.*, (taken.canon_head || '0' || taken.canon_tail)::jsonb as e,
    head.seq + row_number() over (order by taken.n) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), appended as (
  insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
    resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
  select account_id, seq, (e->>'id')::uuid, (e->>'at')::timestamptz, e->>'action', e->'actor'->>'type',
    e->'actor'->>'id', e->'actor'->>'email', e->'resource'->>'type', e->'resource'->>'id', e->>'channel', e->>'ip',
    e->>'user_agent', e->>'request_id', e->'details', coalesce(lag(hash) over (order by seq), head_hash), hash
  from chained
  returning audit_events.seq, audit_events.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select a.seq, a.hash from appended a order by a.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from appended;`,
});

/** The database functions MikroORM keeps in step with the migrations (persistence/database.ts `openOrm`). */
export const auditRoutines = [AuditChainStepRoutine, AuditSealRoutine];
