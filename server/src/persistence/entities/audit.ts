import { defineEntity, p, Routine } from '@mikro-orm/core';
import type { AuditActorType } from '../../domain/audit/chain.js';

/** The columns of what an event records. */
function eventColumns() {
  return {
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
  };
}

/**
 * The audit log (docs/audit.md): one hash chain per account, append-only, each event stored once. A change's
 * transaction inserts its event here as pending: `seq` provisional and negative (`-nextval` of
 * `audit_events_pending_seq`, so the oldest is nearest zero), no `prev_hash` nor `hash`, and its canonical JSON cut
 * around the `seq` it will get (`canonHead`, `canonTail`: domain/audit/chain.ts `canonicalParts`). The sealer
 * (`audit_seal`) then numbers, hashes and links a batch of an account's pending events in one UPDATE, dropping the
 * canonical text, which the columns say again. No foreign key to the account: the record outlives what it records.
 */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  indexes: [
    { properties: ['accountId', 'resourceId', 'seq'] },
    // Retention's cut and the `from`/`to` filters: rows arrive in time order, so a range summary per block is
    // enough and costs no entry per event (nor blocks a HOT update).
    {
      name: 'audit_events_at_brin',
      expression: 'create index "audit_events_at_brin" on "audit_events" using brin ("at")',
    },
    // The sealer's: which accounts have pending events, and an account's in order. A sealed row leaves it.
    {
      name: 'audit_events_pending_index',
      expression:
        'create index "audit_events_pending_index" on "audit_events" ("account_id", "seq") where "seq" < 0',
    },
  ],
  triggers: [
    // Append-only: rewriting or removing an event is refused, except two controlled paths. The seal, which turns a
    // pending row (negative seq, no hash) into a chained one, once; it is hashed over the text written with its change,
    // so a seal that also changed what the row records would fail `verify`. Retention's prefix
    // drop, which sets `sched.audit_retention` for its own transaction and may remove only chained events at or
    // before the chain's anchor, which it moves first to the last dropped event (persistence/audit-events.ts
    // `dropAuditPrefix`): a row past the anchor, or one whose removal the anchor does not cover, cannot be deleted
    // even with the setting.
    {
      name: 'audit_events_append_only',
      timing: 'before',
      events: ['update', 'delete'],
      forEach: 'row',
      body: `if tg_op = 'UPDATE' and old.seq < 0 and old.hash is null and new.seq > 0 and new.hash is not null then return new; end if; if tg_op = 'DELETE' and old.seq > 0 and current_setting('sched.audit_retention', true) = 'prefix' and old.seq <= (select h.anchor_seq from audit_heads h where h.account_id = old.account_id) then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'`,
    },
  ],
  properties: {
    accountId: p.uuid().primary(),
    // Negative while pending (provisional, unique), the chain's number from 1 once sealed.
    seq: p.integer().primary(),
    // Unique by construction (a time-ordered UUID): not indexed, so an append writes one index entry less.
    id: p.uuid(),
    ...eventColumns(),
    prevHash: p.string().length(64).nullable(),
    hash: p.string().length(64).nullable(),
    canonHead: p.text().nullable(),
    canonTail: p.text().nullable(),
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
 * wait, takes the pending rows it finds committed (nearest zero first: the order they were written), numbers them
 * from the head, hashes each onto the one before (`audit_chain`), seals them in place with one UPDATE (seq, links,
 * the canonical text dropped) and moves the head. No `--` comments in the body: MikroORM joins its lines.
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
  select e.seq as pending, e.canon_head, e.canon_tail from audit_events e
  where e.account_id = p_account and e.seq < 0 order by e.seq desc limit p_limit
), numbered as (
  select taken.*, head.seq + row_number() over (order by taken.pending desc) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), linked as (
  select pending, seq, coalesce(lag(hash) over (order by seq), head_hash) as prev_hash, hash from chained
), sealed as (
  update audit_events e set seq = l.seq, prev_hash = l.prev_hash, hash = l.hash, canon_head = null, canon_tail = null
  from linked l where e.account_id = p_account and e.seq = l.pending
  returning e.seq, e.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select s.seq, s.hash from sealed s order by s.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from sealed;`,
});

/** The database functions MikroORM keeps in step with the migrations (persistence/database.ts `openOrm`). */
export const auditRoutines = [AuditChainStepRoutine, AuditSealRoutine];
