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
    // Unique by construction (a random UUID): not indexed, so an append writes one index entry less.
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
 * `audit_append(batch jsonb)`: appends audit events to their accounts' chains in one call
 * (persistence/audit-events.ts `appendAuditBatch`). For each account, in the order given: take its head row (an
 * upsert, which locks it until the transaction ends), number the events from it, hash each as
 * `sha256(prev_hash ‖ before ‖ seq ‖ after)` (the event's canonical JSON, cut around its seq by the caller:
 * domain/audit/chain.ts `canonicalJsonAroundSeq`), insert them in one statement and move the head. One statement, so the head is held
 * only for the rest of its transaction: no round trip happens under the lock, and a plain create stays one statement
 * (persistence/actions.ts `insertActionsWithAudit`).
 */
export const AuditAppendRoutine = new Routine({
  name: 'audit_append',
  type: 'function',
  language: 'plpgsql',
  params: { batch: { type: 'jsonb' } },
  returns: { runtimeType: 'any', columnType: 'void', nullable: true },
  body: `declare g jsonb; e jsonb; account uuid; n int; prev varchar(64); prevs varchar(64)[]; hashes varchar(64)[];
begin
  for g in select value from jsonb_array_elements(batch) loop
    account := (g->>'account_id')::uuid;
    insert into audit_heads as h (account_id, seq, hash, anchor_seq, anchor_hash)
      values (account, 0, repeat('0', 64), 0, repeat('0', 64))
      on conflict (account_id) do update set seq = h.seq
      returning h.seq, h.hash into n, prev;
    prevs := '{}';
    hashes := '{}';
    for e in select value from jsonb_array_elements(g->'events') loop
      prevs := prevs || prev;
      prev := encode(sha256(convert_to(prev || (e->>'before') || (n + cardinality(prevs))::text || (e->>'after'), 'UTF8')), 'hex');
      hashes := hashes || prev;
    end loop;
    insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
      resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
    select account, n + x.ord, x.id, x.at, x.action, x.actor_type, x.actor_id, x.actor_email, x.resource_type,
      x.resource_id, x.channel, x.ip, x.user_agent, x.request_id, x.details, prevs[x.ord], hashes[x.ord]
    from rows from (jsonb_to_recordset(g->'events') as (id uuid, at timestamptz, action varchar, actor_type varchar,
      actor_id varchar, actor_email varchar, resource_type varchar, resource_id varchar, channel varchar, ip varchar,
      user_agent varchar, request_id varchar, details jsonb)) with ordinality as x(id, at, action, actor_type, actor_id,
      actor_email, resource_type, resource_id, channel, ip, user_agent, request_id, details, ord);
    update audit_heads set seq = n + cardinality(hashes), hash = prev where account_id = account;
  end loop;
end`,
});
