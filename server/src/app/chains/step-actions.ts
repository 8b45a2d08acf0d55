import { randomUUID } from 'node:crypto';
import { ActionCreateBody, type GateInput, type RETRY_STRATEGIES } from '@sched/contract';
import type { ResolvedRequest } from '../../domain/chain/resolve.js';
import { monthPeriod, type Plan, planLimits } from '../../domain/quota/plans.js';
import { insertAttachments } from '../../persistence/approvals/attachments.js';
import { insertRecipients } from '../../persistence/approvals/recipients.js';
import { insertStepAction } from '../../persistence/chains.js';
import type { Sql } from '../../persistence/database.js';
import { consumeUsage, periodKey } from '../../persistence/usage-counters.js';
import { prepareAction } from '../actions/prepare.js';
import { resolveGate } from '../approvals/gate.js';
import { recipientsFromDirectory, sqlDirectory } from '../approvals/recipients.js';
import type { CountDestination } from '../domains/guard.js';
import { issuesToErrors, ValidationError } from '../errors.js';
import type { ActionScheduler } from '../ports.js';

/** What a step's work needs from the chain it belongs to. */
export interface StepOwner {
  chainId: string;
  chainName: string;
  accountId: string;
  plan: Plan;
  stepIndex: number;
  stepName: string;
}

export interface StepActionDeps {
  scheduler: ActionScheduler;
  allowPrivateDestinations: boolean;
  /** The destination-domain threshold, as for actions; unset (unit tests) counts nothing. */
  countDestination?: CountDestination | undefined;
}

/** What a started HTTP or gate step runs: its request or gate, interpolated. */
export type StepWork =
  | {
      kind: 'webhook';
      request: ResolvedRequest;
      max_attempts?: number | undefined;
      retry_strategy?: (typeof RETRY_STRATEGIES)[number] | undefined;
      webhook_secret?: string | undefined;
    }
  | {
      kind: 'approval';
      gate: GateInput;
      /** Recipients that an expression chose: they must be the account's contacts or team members (N-M1). */
      fromValues: readonly number[];
    };

/** The step's action was created; or the step cannot run, and why (shown as the step's `error`). */
export type StepActionResult = { ok: true; actionId: string } | { ok: false; error: string };

const refused = (errors: Record<string, string[]>): StepActionResult => ({
  ok: false,
  error: Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
    .join('; '),
});

/**
 * Creates the internal action that runs an HTTP step or a gate step, due now, in the caller's transaction: the same
 * checks as `POST /actions` (schema, destination policy and https rule on the interpolated URL, plan caps,
 * recipients, destination-domain threshold), then the delivery core or the approval engine runs it like any
 * action. It counts as one action against the plan's monthly quota.
 */
export async function createStepAction(
  db: Sql,
  owner: StepOwner,
  work: StepWork,
  now: Date,
  deps: StepActionDeps,
): Promise<StepActionResult> {
  const name = `${owner.chainName} / ${owner.stepName}`.slice(0, 255);
  // Due now: the step starts when the step before it settled.
  const common = { name, scheduled_for: now.toISOString(), timezone: 'UTC' };
  let gateInput = work.kind === 'approval' ? work.gate : null;
  if (work.kind === 'approval' && work.fromValues.length > 0) {
    const chosen = await recipientsFromDirectory(
      work.gate.recipients,
      work.fromValues,
      sqlDirectory(db, owner.accountId),
      'gate.recipients',
    );
    if (!chosen.ok) return refused(chosen.errors);
    gateInput = { ...work.gate, recipients: chosen.recipients };
  }
  const raw =
    work.kind === 'webhook'
      ? {
          ...common,
          mode: 'webhook',
          request: work.request,
          ...(work.max_attempts === undefined ? {} : { max_attempts: work.max_attempts }),
          ...(work.retry_strategy === undefined ? {} : { retry_strategy: work.retry_strategy }),
          ...(work.webhook_secret === undefined ? {} : { webhook_secret: work.webhook_secret }),
        }
      : { ...common, mode: 'approval', gate: gateInput };
  const parsed = ActionCreateBody.safeParse(raw);
  if (!parsed.success) {
    return refused(issuesToErrors(parsed.error.issues, 'step'));
  }
  const prepared = prepareAction(parsed.data, {
    plan: owner.plan,
    now,
    allowPrivateDestinations: deps.allowPrivateDestinations,
  });
  if (!prepared.ok) return refused(prepared.errors);
  const p = prepared.action;
  const gate = p.gate ? await resolveGate(db, owner.accountId, owner.plan, p.gate) : null;
  if (gate && !gate.ok) return refused(gate.errors);
  // Counted before the quota: a refused destination then takes no action from the month's allowance.
  if (p.request && deps.countDestination) {
    try {
      await deps.countDestination(db, owner.accountId, p.request.url, now);
    } catch (error) {
      if (error instanceof ValidationError) return refused(error.errors);
      throw error;
    }
  }

  const allowance = planLimits(owner.plan).actionsPerMonth;
  const period = monthPeriod(now);
  if (
    !(await consumeUsage(db, {
      accountId: owner.accountId,
      period: periodKey(period),
      metric: 'actions',
      limit: allowance,
    }))
  ) {
    return { ok: false, error: `the ${owner.plan} plan's ${allowance} actions a month are spent` };
  }
  const row = await insertStepAction(db, {
    id: randomUUID(),
    account_id: owner.accountId,
    name: p.name,
    description: `Step ${owner.stepIndex} of chain ${owner.chainId}`,
    mode: p.mode,
    status: 'scheduled',
    timezone: p.timezone,
    scheduled_for: now,
    next_attempt_at: now,
    idempotency_key: null,
    dedup_keys: [],
    max_attempts: p.maxAttempts,
    retry_strategy: p.retryStrategy,
    request: p.request,
    webhook_secret: p.webhookSecret,
    callback_url: null,
    coordination: null,
    recurrence: null,
    recurrence_anchor: null,
    gate: gate?.ok ? gate.stored : null,
    chain_id: owner.chainId,
    chain_step_index: owner.stepIndex,
    created_at: now,
    updated_at: now,
  });
  if (gate?.ok && p.gate) {
    await insertRecipients(db, row.id, 'recipient', gate.recipients, now);
    await insertAttachments(db, row.id, p.gate.attachments);
  }
  await deps.scheduler.schedule(db, row.id, now);
  return { ok: true, actionId: row.id };
}
