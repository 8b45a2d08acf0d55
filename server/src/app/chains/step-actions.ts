import type { PrivateAccess } from '../../domain/destinations/policy.js';
import { calendarsNamedBy } from '../calendars/book.js';
import { ActionCreateBody, type DeliveryWindow, type GateInput, type RetryStrategy } from '@sched/contract';
import type { ResolvedRequest } from '../../domain/chain/resolve.js';
import type { SendSource } from '../../domain/domains/rules.js';
import type { Plan } from '../../domain/quota/plans.js';
import type { Sql } from '../../persistence/database.js';
import { type CreateCoreDeps, createAction } from '../actions/create.js';
import { prepareAction } from '../actions/prepare.js';
import { recipientsFromDirectory, sqlDirectory } from '../directory/recipients.js';
import { issuesToErrors, ValidationError } from '../errors.js';
import type { ApprovalGates } from '../ports.js';
import { QuotaExceededError } from '../quota.js';

/** What a step's work needs from the chain it belongs to. */
export interface StepOwner {
  chainId: string;
  chainName: string;
  accountId: string;
  plan: Plan;
  stepIndex: number;
  stepName: string;
  /** Whose act the chain is: its steps' sends count in the owner's or the triggers' counters. */
  source: SendSource;
}

export interface StepActionDeps extends CreateCoreDeps {
  allowPrivateDestinations: PrivateAccess;
  /** Resolves a gate step's gate (app/approvals/gate.ts). */
  gates: ApprovalGates;
}

/** What a started HTTP or gate step runs: its request or gate, interpolated. */
export type StepWork =
  | {
      kind: 'webhook';
      request: ResolvedRequest;
      max_attempts?: number | undefined;
      retry_strategy?: RetryStrategy | undefined;
      webhook_secret?: string | undefined;
      delivery_window?: DeliveryWindow | undefined;
    }
  | {
      kind: 'approval';
      gate: GateInput;
      delivery_window?: DeliveryWindow | undefined;
      /** Recipients that an expression chose: they must be the account's contacts or team members. */
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
 * Creates the internal action that runs an HTTP step or a gate step, due now, in the caller's transaction: the step's
 * work becomes an ordinary create body (schema, destination policy and https rule on the interpolated URL, plan caps)
 * and goes through the create core (app/actions/create.ts: recipients, channel allowances, destination-domain
 * threshold, quota), as `POST /actions` does; the action names its chain and step. A refusal is the step's error
 * and writes nothing.
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
  const common = {
    name,
    scheduled_for: now.toISOString(),
    timezone: 'UTC',
    ...(work.delivery_window ? { delivery_window: work.delivery_window } : {}),
  };
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
    calendars: await calendarsNamedBy(db, owner.accountId, [parsed.data]),
  });
  if (!prepared.ok) return refused(prepared.errors);
  try {
    const row = await createAction(
      db,
      {
        owner: { accountId: owner.accountId, plan: owner.plan },
        action: prepared.action,
        origin: { kind: 'chain_step', chainId: owner.chainId, stepIndex: owner.stepIndex },
        now,
        source: owner.source,
      },
      deps,
    );
    return { ok: true, actionId: row.id };
  } catch (error) {
    if (error instanceof ValidationError) return refused(error.errors);
    if (error instanceof QuotaExceededError) return { ok: false, error: error.message };
    throw error;
  }
}
