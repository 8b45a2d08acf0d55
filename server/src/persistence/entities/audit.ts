import { defineEntity, p } from '@mikro-orm/core';
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
 * Audit events written by their change's transaction and not yet chained (persistence/audit-events.ts): a plain
 * insert, so a change takes no lock of the log and its commit waits for no other. The sealer (app/audit.ts
 * `AuditSealer`, run by the worker every second and by every read of the log) moves them into `audit_events` in the
 * order it finds them committed, numbering and hashing them under the account's head lock. `n` orders an account's
 * pending events (a sequence: a rolled-back insert leaves a gap here, never in the chain).
 */
export const AuditPendingSchema = defineEntity({
  name: 'AuditPending',
  tableName: 'audit_pending',
  properties: {
    n: p.bigint().autoincrement().primary(),
    accountId: p.uuid(),
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
  },
  indexes: [{ properties: ['accountId', 'n'] }],
});
