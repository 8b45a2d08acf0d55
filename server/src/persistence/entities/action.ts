import { defineEntity, p } from '@mikro-orm/core';
import type {
  ActionMode,
  BulkItemOutcome,
  BulkOperationKind,
  BulkOperationState,
  HoldReason,
  ErrorClass,
  RetryStrategy,
  StepStatus,
} from '@sched/contract';
import {
  type ActionPhase,
  type ActionState,
  LIVE_STATES,
  PENDING_PHASE,
  PENDING_STATES,
  phaseOf,
  TERMINAL_STATES,
} from '../../domain/action/states.js';
import type { DeliveryOutcome } from '../../domain/delivery/outcome.js';
import type { SendSource } from '../../domain/domains/rules.js';
import { AccountSchema } from './account.js';
import { FAILED_INBOX_TRIGGERS } from './failed-inbox.js';
import type {
  StoredCoordination,
  StoredGate,
  StoredPause,
  StoredRecurrence,
  StoredRequest,
  StoredWindow,
  StoredWindowState,
} from './stored.js';

const FAILED: ActionState = 'failed';
const sqlList = (states: readonly string[]) => `(${states.map((s) => `'${s}'`).join(', ')})`;
/** The live phases (what the idempotency key is unique among). */
const LIVE_PHASES = [...new Set(LIVE_STATES.map(phaseOf))];

/**
 * The SQL of the generated `phase` column (domain/action/states.ts `phaseOf`): every index of the table reads it, never
 * `status`, so that the promote and the claim, which change only the status within the pending phase, the lease, the
 * attempt count and `updated_at`, are HOT updates (no index entry written; PostgreSQL decides by column, so a
 * partial index's predicate on `status` would be enough to prevent it).
 */
const PHASE_SQL = `(case when status in ${sqlList(PENDING_STATES)} then '${PENDING_PHASE}'::character varying else status end) stored`;
/** When a failed action failed (its `updated_at` while it is `failed`): the inbox's failure-time filter reads it. */
const FAILED_AT_SQL = `(case when status = '${FAILED}' then updated_at else null::timestamp with time zone end) stored`;
/** What queries of the due and held attempts add (as literals) so the planner can use the partial indexes below. */
export const PENDING_PHASE_SQL = `phase = '${PENDING_PHASE}'`;
/** The phase (and state) of an approval waiting for an answer. */
const AWAITING_PHASE: ActionPhase = phaseOf('awaiting_response');

/**
 * The channel the `action_changed` trigger notifies with an action's id, at the commit of the transaction that moved
 * it: every step of an approval, and the end of any action. Held `GET /v1/actions/{id}/wait` requests hear it on
 * their process's one LISTEN connection, whichever process recorded the change.
 */
export const ACTION_CHANGED_CHANNEL = 'sched_action_changed';

/** The channel the `chain_step_settled` trigger notifies with a chain's id when its running step's action settles. */
export const CHAIN_DUE_CHANNEL = 'sched_chain_due';
const RUNNING_STEP: StepStatus = 'running';

/**
 * A scheduled action. The one declaration of the table: migrations are diffed against it and the typed
 * SQL of persistence/actions.ts is inferred from it. (Its fillfactor of 50, set by a migration, is a storage
 * setting the diff does not see: a promote or a claim updates every row of a page in one statement, and each new
 * version must fit on its row's page to be HOT; at 70, 40-55 % of them did, measured in hot-delivery.test.ts.)
 * Its properties are listed in the order of the table's columns, which the migrations decide (see `timezone` below).
 */
export const ActionSchema = defineEntity({
  name: 'Action',
  tableName: 'actions',
  indexes: [
    { properties: ['account', 'createdAt'] },
    // The dispatcher's scan: pending actions not held by their destination, by due time. Held rows stay out (they
    // have actions_held_index): with `held_since is null` in the predicate the planner need not guess that filter's
    // selectivity, and reads the claim's candidates in due order even without statistics (a freshly filled table
    // got a bitmap scan and a sort of the whole due set per claim: 9 ms against 0.3 ms for 5,000 due, measured).
    // Attempts in flight stay in it (their claim writes no index entry), and the lease sweep finds them through it.
    // This unbounded index is what the migrations make; at its first start sched replaces it by the day's bounded one
    // (the attempts due in the next three days only: persistence/due-index.ts), built again each day.
    {
      name: 'actions_due_index',
      expression: `create index "actions_due_index" on "actions" ("next_attempt_at") where "phase" = '${PENDING_PHASE}' and "held_since" is null`,
    },
    // Only rows with keys: most have none, and every update of a row would otherwise add its entry again.
    {
      name: 'actions_dedup_keys_index',
      expression:
        'create index "actions_dedup_keys_index" on "actions" using gin ("dedup_keys") where "dedup_keys" <> \'{}\'',
    },
    // The failed-delivery inbox (GET /actions filters, docs/operations.md): a status, a destination host, the
    // moment of failure and the last attempt's class each narrow one account's rows through an index, newest first.
    // Lists never show a chain's steps, so the phase index leaves them out: a list's count (`meta.total`) then
    // needs nothing the index does not hold, and is an index-only scan. The failed inbox's other filters (the last
    // attempt's status code and class) ride along, so their counts are index-only too. An outcome rewrites every
    // index entry of its row anyway (it changes the phase), and nothing that leaves the phase alone changes them
    // except a retryable failure, which actions_last_error_index already makes write new entries.
    {
      name: 'actions_account_phase_index',
      expression:
        'create index "actions_account_phase_index" on "actions" ("account_id", "phase", "created_at") include ("last_status_code", "last_error_class") where "chain_id" is null',
    },
    // The approvals waiting for an answer, chains' gate steps included: what `GET /v1/approvals` lists and counts.
    // Few rows (only approvals, only while they wait), so a list of them reads no other action.
    {
      name: 'actions_awaiting_index',
      expression: `create index "actions_awaiting_index" on "actions" ("account_id", "created_at") where "phase" = '${AWAITING_PHASE}'`,
    },
    // One host's actions newest first; with what the failed inbox filters by beside each entry, a host's count by
    // state or by the last attempt needs no row (counting a host's 200,000 rows for `last_status_code=5xx` read
    // each: 1.5 s at ten million).
    {
      name: 'actions_account_destination_host_index',
      expression:
        'create index "actions_account_destination_host_index" on "actions" ("account_id", "destination_host", "created_at") include ("chain_id", "phase", "last_status_code", "last_error_class")',
    },
    {
      name: 'actions_failed_index',
      expression: `create index "actions_failed_index" on "actions" ("account_id", "failed_at") where "failed_at" is not null`,
    },
    {
      name: 'actions_last_error_index',
      expression:
        'create index "actions_last_error_index" on "actions" ("account_id", "last_error_class", "last_status_code") where "last_error_class" is not null',
    },
    // Due deliveries held by their destination (a pause, a circuit, flow control), by origin: what a destination's
    // wake fires (app/destinations/breaker.ts) and the held gauges count. Rows enter when held and leave when claimed.
    {
      name: 'actions_held_index',
      expression: `create index "actions_held_index" on "actions" ("account_id", "destination_origin", "next_attempt_at") where "held_since" is not null and "phase" = '${PENDING_PHASE}'`,
    },
    {
      name: 'actions_replay_of_index',
      expression:
        'create index "actions_replay_of_index" on "actions" ("replay_of") where "replay_of" is not null',
    },
  ],
  uniques: [
    // Two racing creates with one idempotency key cannot both insert a live action.
    {
      name: 'actions_live_idempotency_key_unique',
      expression: `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "phase" in ${sqlList(LIVE_PHASES)}`,
    },
  ],
  triggers: [
    // A chain step's action reaching a final state marks the running step due in the same transaction, so the
    // chain engine's scan (persistence/chains.ts) finds it through one partial index, whatever finished the action.
    // Due since 1970, not now(): due at once whatever the application's clock says. The NOTIFY (sent at commit)
    // lets a listening worker advance the chain at once; the scan is the durable path.
    {
      name: 'chain_step_settled',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      // Written as PostgreSQL prints it back, so the schema diff sees no change.
      when: '(new.chain_id IS NOT NULL)',
      body: `if new.status in ${sqlList(TERMINAL_STATES)} and new.status is distinct from old.status then update chain_steps set due_at = 'epoch' where action_id = new.id and status = '${RUNNING_STEP}'; perform pg_notify('${CHAIN_DUE_CHANNEL}', new.chain_id::text); end if; return null`,
    },
    {
      name: 'action_changed',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      when: '((new.status)::text IS DISTINCT FROM (old.status)::text)',
      body: `if new.gate is not null or new.status in ${sqlList(TERMINAL_STATES)} then perform pg_notify('${ACTION_CHANGED_CHANNEL}', new.id::text); end if; return null`,
    },
    // The failed inbox's kept total (entities/failed-inbox.ts).
    ...FAILED_INBOX_TRIGGERS,
    // A deleted action's attempts go with it: the attempt log has no foreign key (DeliveryAttemptSchema below). One
    // statement's deleted actions at once, after it; declared raw (`expression`) for its transition table, which
    // MikroORM's trigger fields cannot say. The migration AttemptsOfDeletedActionsByArray writes the same text.
    {
      name: 'attempts_of_deleted_actions',
      timing: 'after',
      events: ['delete'],
      forEach: 'statement',
      expression: `create or replace function "attempts_of_deleted_actions"() returns trigger as $$ begin delete from delivery_attempts where action_id = any (array(select id from deleted_actions)); return null; end; $$ language plpgsql;\ncreate trigger "attempts_of_deleted_actions" after delete on "actions" referencing old table as deleted_actions for each statement execute function "attempts_of_deleted_actions"()`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    description: p.text().nullable(),
    mode: p.string().length(16).$type<ActionMode>(),
    status: p.string().length(32).$type<ActionState>(),
    scheduledFor: p.datetime(),
    nextAttemptAt: p.datetime().nullable(),
    executedAt: p.datetime().nullable(),
    attemptCount: p.integer().default(0),
    rescheduleCount: p.integer().default(0),
    recurrenceAnchor: p.datetime().nullable(),
    recurrenceCount: p.integer().default(0),
    lastExecutedAt: p.datetime().nullable(),
    leaseUntil: p.datetime().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    /** Index of the current occurrence from the anchor; runs ahead of recurrence_count when occurrences were missed. */
    recurrenceIndex: p.integer().default(0),
    /** Set on the internal action that runs a chain's step: left out of action lists, read through the chain. */
    chainId: p.uuid().nullable(),
    chainStepIndex: p.integer().nullable(),
    /** The running pause (`paused` state): what resume needs; null when not paused. */
    pause: p.json<StoredPause>().nullable(),
    /** The latest delivery attempt, copied from `delivery_attempts` as it is recorded: the inbox reads one row. */
    lastAttemptAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastErrorClass: p.string().length(16).$type<ErrorClass>().nullable(),
    lastLatenessMs: p.integer().nullable(),
    /** The action this one replays (POST /actions/{id}/replay). */
    replayOf: p.uuid().nullable(),
    /** Since when, and by what, its due attempt has been held by its destination; cleared by the claim. */
    heldSince: p.datetime().nullable(),
    heldBy: p.string().length(16).$type<HoldReason>().nullable(),
    /**
     * The occurrence (`recurrence_index`) whose send was last counted against the destination threshold. A
     * claim of an occurrence not yet counted counts it first (app/deliveries/deliver.ts); null when the destination
     * is not counted (verified, or a private address in development), so verified senders pay nothing per send.
     */
    countedOccurrence: p.integer().nullable(),
    /** What the window did: the deferral of the pending attempt and the occurrences it skipped. */
    windowState: p.json<StoredWindowState>().nullable(),
    /** Generated from `status` (PHASE_SQL above): what the indexes read. Never written. */
    phase: p.string().length(32).$type<ActionPhase>().nullable().generated(PHASE_SQL),
    /** Generated (FAILED_AT_SQL above): when a `failed` action failed; null otherwise. Never written. */
    failedAt: p.datetime().nullable().generated(FAILED_AT_SQL),
    // The columns a delivery never changes, the wide ones among them, lie behind the ones it changes (migration
    // ColdColumnsLast): an update that stays on its page is logged as the bytes from its first change to its last.
    timezone: p.string().length(64),
    idempotencyKey: p.string().length(255).nullable(),
    dedupKeys: p.array().default([]),
    maxAttempts: p.integer(),
    retryStrategy: p.string().length(16).$type<RetryStrategy>(),
    manualRetryCount: p.integer().default(0),
    request: p.json<StoredRequest>().nullable(),
    webhookSecret: p.string().length(255).nullable(),
    callbackUrl: p.string().length(2048).nullable(),
    coordination: p.json<StoredCoordination>().nullable(),
    recurrence: p.json<StoredRecurrence>().nullable(),
    gate: p.json<StoredGate>().nullable(),
    /** The request URL's host, lower-cased (derived on insert, persistence/actions.ts): the inbox filters on it. */
    destinationHost: p.string().length(255).nullable(),
    /** W3C trace context of the request that created the action: the delivery span links to it (OpenTelemetry). */
    traceparent: p.string().length(55).nullable(),
    /** Whose act the action is (`api`, or `trigger`: a template's public URL): the counters its sends count in. */
    createdVia: p.string().length(16).$type<SendSource>().default('api'),
    /** When it may fire (`delivery_window`); null: at any time. */
    deliveryWindow: p.json<StoredWindow>().nullable(),
    /**
     * The request URL's origin (domain/destinations/origin.ts, derived on insert): the destination whose circuit,
     * flow control and pause the delivery obeys. Queries by origin also name the host, to use the host's index.
     */
    destinationOrigin: p.string().length(300).nullable(),
  },
});

/**
 * One HTTP delivery attempt of an action (the `delivery_attempts` log). The table is partitioned by month of the
 * time-ordered id (migration AttemptPartitions; the months are kept by persistence/partitions.ts, not declared here).
 */
export const DeliveryAttemptSchema = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  // startedAt: the console's last 24 hours of deliveries (persistence/stats.ts), a range of a column rows are
  // appended in the order of: a BRIN (a summary per 128 pages) serves it for a fraction of a b-tree's writes.
  // The primary key (action, id) is the one b-tree: uniqueness (a partition key must be part of it), an action's
  // attempts a keyset page at a time, newest first (GET /actions/{id}/attempts), and the delete of a deleted action's
  // attempts. No foreign key: a trigger of `actions` deletes them with it (migration AttemptsOfDeletedActions), and a
  // delivery writes an attempt only in the transaction that updates its action.
  indexes: [
    {
      name: 'delivery_attempts_started_at_index',
      expression:
        'create index "delivery_attempts_started_at_index" on "delivery_attempts" using brin ("started_at")',
    },
  ],
  properties: {
    action: () => p.manyToOne(ActionSchema).createForeignKeyConstraint(false).primary(),
    id: p.uuid().primary(),
    attemptNumber: p.integer(),
    dueAt: p.datetime(),
    startedAt: p.datetime(),
    latenessMs: p.integer(),
    durationMs: p.integer(),
    statusCode: p.integer().nullable(),
    outcome: p.string().length(16).$type<DeliveryOutcome>(),
    /** Why the attempt did not succeed (domain/delivery/error-class.ts); null for a success. */
    errorClass: p.string().length(16).$type<ErrorClass>().nullable(),
    /** How long, and by what, the due attempt was held by its destination before it started. */
    heldMs: p.integer().nullable(),
    heldBy: p.string().length(16).$type<HoldReason>().nullable(),
    error: p.text().nullable(),
    responseExcerpt: p.text().nullable(),
    responseTruncated: p.boolean().default(false),
  },
});

/** A lifecycle event to POST to an action's callback_url: an outbox row, delivered by a job. */
export const CallbackDeliverySchema = defineEntity({
  name: 'CallbackDelivery',
  tableName: 'callback_deliveries',
  indexes: [{ properties: ['action', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    /** The action the event is about; null for a chain's event. */
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade').nullable(),
    /** The chain the event is about (chain.* events); the chain's rows are deleted with its account. */
    chainId: p.uuid().nullable(),
    event: p.string().length(64),
    url: p.string().length(2048),
    envelope: p.json<Record<string, unknown>>(),
    status: p.string().length(16),
    attemptCount: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    /**
     * The names the URL counts against (domain/domains/rules.ts `countedNames`), worked out when the callback is
     * written, so its delivery reads their verification with the row; empty when it is not counted.
     */
    destinationNames: p.array().default([]),
    createdAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
  },
});

/** Monthly usage counters (quota): incremented in the same transaction as what they count. */
export const UsageCounterSchema = defineEntity({
  name: 'UsageCounter',
  tableName: 'usage_counters',
  properties: {
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade').primary(),
    period: p.string().length(7).primary(),
    metric: p.string().length(32).primary(),
    used: p.integer().default(0),
  },
});

/**
 * A bulk operation: one operation applied to the actions a filter or a list of ids matched when it
 * started. The set is snapshotted into `bulk_operation_items`; a worker works through it in keyset pages under a
 * lease, so a worker that dies is replaced and none of the items is processed twice.
 */
export const BulkOperationSchema = defineEntity({
  name: 'BulkOperation',
  tableName: 'bulk_operations',
  indexes: [
    { properties: ['account', 'createdAt'] },
    {
      name: 'bulk_operations_running_index',
      expression:
        'create index "bulk_operations_running_index" on "bulk_operations" ("lease_until") where "status" = \'running\'',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    operation: p.string().length(16).$type<BulkOperationKind>(),
    status: p.string().length(16).$type<BulkOperationState>(),
    /** The filter as given (null when ids were given). */
    filter: p.json<Record<string, unknown>>().nullable(),
    /** The replay overrides, for `replay`. */
    options: p.json<Record<string, unknown>>().nullable(),
    note: p.string().length(1000).nullable(),
    matched: p.integer().default(0),
    processed: p.integer().default(0),
    affected: p.integer().default(0),
    skipped: p.integer().default(0),
    failed: p.integer().default(0),
    /** Items are taken in action id order; this is the last id a committed batch reached. */
    cursor: p.uuid().nullable(),
    /** Held by the worker running the operation; an expired lease lets another worker take it over. */
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});

/** One action of a bulk operation's snapshot; `outcome` is set in the transaction that changed the action. */
export const BulkOperationItemSchema = defineEntity({
  name: 'BulkOperationItem',
  tableName: 'bulk_operation_items',
  // The action's timeline lists the operations that touched it.
  indexes: [{ name: 'bulk_operation_items_action_id_index', properties: ['actionId'] }],
  properties: {
    operation: () => p.manyToOne(BulkOperationSchema).deleteRule('cascade').primary(),
    /** No foreign key: an action purged by retention meanwhile is reported skipped, not lost from the count. */
    actionId: p.uuid().primary(),
    outcome: p.string().length(16).$type<BulkItemOutcome>().nullable(),
    /** Why an action was skipped or failed, or the id of the action a replay made. */
    detail: p.text().nullable(),
    processedAt: p.datetime().nullable(),
  },
});
