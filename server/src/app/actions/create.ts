import { ACTION_CREATE_EVENT, auditUrl } from '../../domain/audit/details.js';
import { isBlockedAddress } from '../../domain/destinations/policy.js';
import { countedNames, type SendSource } from '../../domain/domains/rules.js';
import { monthPeriod, type Plan, planLimits } from '../../domain/quota/plans.js';
import { type ActionRow, insertAction, type NewAction } from '../../persistence/actions.js';
import { insertAttachments } from '../../persistence/approvals/attachments.js';
import { insertRecipients } from '../../persistence/approvals/recipients.js';
import type { PendingAuditEvent } from '../../persistence/audit-events.js';
import type { Sql } from '../../persistence/database.js';
import { timeOrderedId } from '../../persistence/ids.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import { type AuditRecord, auditEventOf, recordAudit } from '../audit.js';
import type { CountDestination } from '../domains/guard.js';
import type { ActionScheduler, ApprovalGates, ResolvedGate } from '../ports.js';
import { QuotaExceededError } from '../quota.js';
import type { PreparedAction } from './prepare.js';

/**
 * The create core: the one way an action is made. `POST /actions` and its batch (app/actions/service.ts, also behind
 * template triggers), a chain's HTTP or gate step (app/chains/step-actions.ts), a replay (app/actions/replay.ts) and
 * the request run after an approval (app/approvals/outcomes.ts) all write their action here or through its batch
 * writer (create-batch.ts). The order is gate resolution -> destination count -> quota -> row (`newActionRow`) ->
 * recipients and attachments -> schedule, and the `action.create` audit event is written with the row, so no caller
 * records it (docs/audit.md).
 */

/** Whose action it is: its account, and the plan its checks are made against. */
export interface ActionOwner {
  accountId: string;
  plan: Plan;
}

/**
 * Why the action is made. A chain step's action names its chain and step (it is read through the chain, not listed).
 * A post-approval request is part of the approval it follows: that approval was counted and its request checked
 * when it was created, so the request counts neither against the quota nor against the destination threshold, and
 * no plan is needed to write it.
 */
export type ActionOrigin =
  | { kind: 'request' }
  | { kind: 'chain_step'; chainId: string; stepIndex: number }
  | { kind: 'post_approval'; approvalId: string };

/** A create the caller asked for (the API, a template trigger, a batch item). */
export const REQUEST: ActionOrigin = { kind: 'request' };

/**
 * How an action's first send meets the destination threshold: counted by the create (`created`), counted when
 * it is sent (`at_send`: a later round's post-approval request), or not counted (`none`: a verified or private
 * destination, or no request).
 */
type FirstSendCount = 'created' | 'at_send' | 'none';

/** `counted_occurrence` for each: the first occurrence (index 0) counted, none counted yet, or never counted. */
const COUNTED_OCCURRENCE: Record<FirstSendCount, number | null> = { created: 0, at_send: -1, none: null };

export interface CreateCoreDeps {
  scheduler: ActionScheduler;
  /** The destination-domain threshold (app/domains/guard.ts); unset (unit tests) counts nothing. */
  countDestination?: CountDestination | undefined;
}

export interface NewActionInput {
  /** The post-approval request (no plan checks) needs only the account. */
  owner: ActionOwner | { accountId: string; plan?: undefined };
  /** The validated create (app/actions/prepare.ts `prepareAction`). */
  action: PreparedAction;
  /** Its gate, resolved by `resolveActionGate` (null without one). */
  gate: ResolvedGate | null;
  origin: ActionOrigin;
  now: Date;
  /** The caller has just read that the destination host is unverified (the guard need not read it again). */
  destinationUnverified?: boolean | undefined;
  /**
   * When set, a plan without a monthly cap is not counted in the transaction but handed here with its period, to be
   * counted after the commit (the API does so on a connection that does not wait for the disk flush).
   */
  countLater?: ((period: string, amount: number) => void) | undefined;
  /** The creating request's W3C `traceparent`, kept for the delivery span to link to. */
  traceparent?: string | null | undefined;
  /** Whose act the create is: its sends count in the owner's counters (`api`, default) or the triggers'. */
  source?: SendSource | undefined;
  /**
   * A post-approval request of a recurring approval's later round: its send is counted when it is sent (the
   * approval's create counted only the first round's).
   */
  countAtSend?: boolean | undefined;
}

/** The schedule columns of a prepared action: written by its create, and again by a reschedule (reschedule.ts). */
export function scheduleColumns(p: PreparedAction) {
  return {
    timezone: p.timezone,
    scheduled_for: p.at,
    recurrence: p.recurrence,
    recurrence_anchor: p.recurrence ? (p.anchor ?? p.at) : null,
    recurrence_index: p.recurrenceIndex ?? 0,
    window_state: p.windowState ?? null,
  };
}

/**
 * The action row a create writes, built in one place. Every column a create sets is here; the others start at
 * their defaults (persistence/actions.ts `CREATE_COLUMNS`).
 */
export function newActionRow(
  p: PreparedAction,
  ctx: {
    accountId: string;
    gate: ResolvedGate | null;
    origin: ActionOrigin;
    now: Date;
    traceparent?: string | null;
    source?: SendSource | undefined;
    firstSend?: FirstSendCount;
  },
): NewAction {
  const { origin, now } = ctx;
  return {
    id: timeOrderedId(),
    account_id: ctx.accountId,
    name: p.name,
    description:
      origin.kind === 'chain_step'
        ? `Step ${origin.stepIndex} of chain ${origin.chainId}`
        : origin.kind === 'post_approval'
          ? `Request run after approval of action ${origin.approvalId}`
          : p.description,
    mode: p.mode,
    status: 'scheduled',
    ...scheduleColumns(p),
    next_attempt_at: p.dueAt ?? p.at,
    idempotency_key: p.idempotencyKey,
    dedup_keys: p.dedupKeys,
    max_attempts: p.maxAttempts,
    retry_strategy: p.retryStrategy,
    request: p.request,
    webhook_secret: p.webhookSecret,
    callback_url: p.callbackUrl,
    coordination: p.coordination,
    delivery_window: p.window ?? null,
    gate: ctx.gate?.stored ?? null,
    chain_id: origin.kind === 'chain_step' ? origin.chainId : null,
    chain_step_index: origin.kind === 'chain_step' ? origin.stepIndex : null,
    traceparent: ctx.traceparent ?? null,
    created_via: ctx.source ?? 'api',
    counted_occurrence: COUNTED_OCCURRENCE[ctx.firstSend ?? 'none'],
    created_at: now,
    updated_at: now,
  };
}

/** A new row with its `action.create` event, captured in the creating request's context (its actor and address). */
export interface NewActionRecord {
  row: NewAction;
  /** Null for an account known not to record its creates (the event's insert would leave it out anyway). */
  audit: PendingAuditEvent | null;
}

/**
 * `newActionRow` and its audit event, for the creates written in one statement (create-batch.ts); no event when the
 * caller knows the account does not record creates (`recordsCreates` false: printing it would be wasted).
 */
export function newActionRecord(
  p: PreparedAction,
  ctx: Parameters<typeof newActionRow>[1],
  recordsCreates = true,
): NewActionRecord {
  const row = newActionRow(p, ctx);
  return { row, audit: recordsCreates ? auditEventOf(ctx.accountId, createdRecord(row)) : null };
}

/**
 * Resolves a prepared gate against the account's directory and refuses one whose channels' monthly allowance is
 * spent: a ValidationError (422 paths under `gate.`) or a QuotaExceededError. Null without a gate.
 */
export async function resolveActionGate(
  db: Sql,
  owner: ActionOwner,
  p: PreparedAction,
  now: Date,
  gates: ApprovalGates,
): Promise<ResolvedGate | null> {
  return p.gate ? gates.resolve(db, owner, p.gate, now) : null;
}

/**
 * Writes a prepared action whose gate is resolved, in the caller's transaction: destination count, quota, row,
 * recipients and attachments, schedule. Throws ValidationError (destination threshold) or QuotaExceededError before
 * anything is written, so a caller that goes on in the same transaction (a chain) is left with nothing to undo.
 */
export async function writeNewAction(
  db: Sql,
  input: NewActionInput,
  deps: CreateCoreDeps,
): Promise<ActionRow> {
  const { owner, action: p, gate, origin, now } = input;
  let firstSend: FirstSendCount = 'none';
  if (origin.kind !== 'post_approval') {
    if (!owner.plan) throw new Error(`a create of origin ${origin.kind} is checked against its plan`);
    if (p.request && deps.countDestination) {
      const counted = await deps.countDestination(db, owner.accountId, p.request.url, now, {
        unverified: input.destinationUnverified ?? false,
        source: input.source,
      });
      if (counted) firstSend = 'created';
    }
    await takeActionQuota(db, owner, now, input.countLater);
  } else if (input.countAtSend && p.request && countedNames(p.request.url, isBlockedAddress).length > 0) {
    firstSend = 'at_send';
  }

  const row = await insertAction(
    db,
    newActionRow(p, {
      accountId: owner.accountId,
      gate,
      origin,
      now,
      traceparent: input.traceparent ?? null,
      source: input.source,
      firstSend,
    }),
  );
  if (audited(origin)) await recordAudit(db, owner.accountId, createdRecord(row));
  if (gate && p.gate) {
    await insertRecipients(db, row.id, 'recipient', gate.recipients, now);
    await insertAttachments(db, row.id, p.gate.attachments);
  }
  await deps.scheduler.schedule(db, row.id, p.dueAt ?? p.at);
  return row;
}

/**
 * The entry point for a caller already in a transaction (a chain step, replay, bulk operations): the whole create
 * core, from gate resolution to schedule. `POST /actions` runs the same two halves itself, resolving the gate before
 * its transaction and sharing one-statement creates with its turn (app/actions/service.ts).
 */
export async function createAction(
  db: Sql,
  input: Omit<NewActionInput, 'gate' | 'owner'> & { owner: ActionOwner },
  deps: CreateCoreDeps & { gates: ApprovalGates },
): Promise<ActionRow> {
  const gate = await resolveActionGate(db, input.owner, input.action, input.now, deps.gates);
  return writeNewAction(db, { ...input, gate }, deps);
}

/**
 * Whether a create writes its own `action.create` event: every origin but the request run after an approval, which is
 * part of that approval (its create and its decisions are in the log, and `gate.post_approval_action_id` names it).
 */
function audited(origin: ActionOrigin): boolean {
  return origin.kind !== 'post_approval';
}

/** The audit record of a new action: what was asked for, never its secrets (headers and signing secret left out). */
function createdRecord(
  row: Pick<NewAction, 'id' | 'name' | 'mode' | 'scheduled_for' | 'request'>,
): AuditRecord {
  return {
    action: ACTION_CREATE_EVENT,
    resource: { type: 'action', id: row.id },
    details: {
      name: row.name,
      mode: row.mode,
      scheduled_for: row.scheduled_for.toISOString(),
      // Without its query or user info, where tokens travel (`?key=`); headers and body never.
      ...(row.request ? { method: row.request.method, url: auditUrl(row.request.url) } : {}),
    },
  };
}

/**
 * Takes `amount` actions (one create, or a batch's plain items together) from the plan's monthly allowance, or throws
 * QuotaExceededError with Retry-After until the 1st: a batch that does not fit whole takes nothing.
 */
export async function takeActionQuota(
  db: Sql,
  owner: ActionOwner,
  now: Date,
  countLater: ((period: string, amount: number) => void) | undefined,
  amount = 1,
): Promise<void> {
  const allowance = planLimits(owner.plan).actionsPerMonth;
  const period = monthPeriod(now);
  if (allowance === null && countLater) {
    // Nothing to refuse: counted after the commit, so no counter row every create of the account would queue on.
    countLater(periodKey(period), amount);
    return;
  }
  if (
    !(await consumeUsage(db, {
      accountId: owner.accountId,
      period: periodKey(period),
      metric: 'actions',
      limit: allowance,
      amount,
    }))
  ) {
    throw new QuotaExceededError(
      `the ${owner.plan} plan allows ${allowance} actions a month; the quota resets ${period.end.toISOString()}`,
      Math.max(1, Math.ceil((period.end.getTime() - now.getTime()) / 1000)),
    );
  }
}
