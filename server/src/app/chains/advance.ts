import type { ChainState, StepType } from '@sched/contract';
import { shownText } from '../../domain/auth/api-key.js';
import type { DelayStepParsed, GatedStepParsed, HttpCallStepParsed } from '../../domain/chain/definition.js';
import {
  chainScope,
  conditionHolds,
  delayMs,
  expressionFailure,
  interpolateGate,
  resolveHttpCall,
  stepResponse,
} from '../../domain/chain/resolve.js';
import {
  assertChainTransition,
  assertStepTransition,
  decideNext,
  isChainTerminal,
  type StepSettlement,
  settleStep,
  stepsToCancel,
} from '../../domain/chain/states.js';
import { ExpressionError } from '../../domain/expressions/errors.js';
import type { Plan } from '../../domain/quota/plans.js';
import { type ActionRow, lockAction } from '../../persistence/actions.js';
import { accountPlan } from '../../persistence/accounts.js';
import {
  announceChainDue,
  type ChainRow,
  type ChainStepRow,
  clearStepDue,
  lockChain,
  stepsOf,
  updateChain,
  updateStep,
} from '../../persistence/chains.js';
import type { Sql } from '../../persistence/database.js';
import { type AuditRecord, recordAudit } from '../audit.js';
import type { ChainCallbacks, Clock, Store } from '../ports.js';
import { indexesWithExpressions } from '../../domain/expressions/syntax.js';
import { createStepAction, type StepActionDeps, type StepWork } from './step-actions.js';
import { chainContext } from './view.js';

export interface ChainEnginePorts extends StepActionDeps {
  store: Store;
  clock: Clock;
  callbacks: ChainCallbacks;
}

/** A step as callbacks report it (contract: ChainStepResult). */
export function stepResult(s: ChainStepRow) {
  return { index: s.index, name: s.name, type: s.type, status: s.status, outcome: s.outcome, error: s.error };
}

/**
 * The chain engine's one use case: bring a chain up to date with what its running step's work has become, then
 * start the next step, complete or fail the chain; all in one transaction that holds the chain's row. Idempotent:
 * when the running step's action (or delay) has not settled, or the chain has ended, it does nothing, so any number
 * of triggers (the worker's scan, a create, a restart) may call it at once.
 */
export class ChainEngine {
  constructor(private readonly p: ChainEnginePorts) {}

  async advance(chainId: string): Promise<void> {
    await this.p.store.transaction(async (db) => {
      // SKIP LOCKED: another worker advancing this chain right now does the work.
      const chain = await lockChain(db, chainId, { skipLocked: true });
      if (!chain || isChainTerminal(chain.status)) return;
      await this.advanceLocked(db, chain);
    });
  }

  /** In the caller's transaction, with the chain's row locked; `plan` when the caller knows it (a create). */
  async advanceLocked(db: Sql, locked: ChainRow, plan?: Plan): Promise<void> {
    let chain = locked;
    const steps = await stepsOf(db, chain.id);
    const now = this.p.clock();
    const running = steps.find((s) => s.status === 'running');
    if (running) {
      const settlement = await this.observe(db, running, now);
      if (settlement === null) {
        if (running.type !== 'wait' && running.due_at) await clearStepDue(db, chain.id, running.index);
        return;
      }
      steps[running.index] = await this.settle(db, chain, running, settlement, now);
    }
    const stepPlan = plan ?? (await accountPlan(db, chain.account_id));
    for (;;) {
      const decision = decideNext(
        chain.status,
        chain.error_handling,
        steps.map((s) => s.outcome),
      );
      const status: ChainState = decision.chainEvent
        ? assertChainTransition(chain.status, decision.chainEvent)
        : chain.status;
      const move = decision.move;
      if (move.kind === 'run_step') {
        chain = await updateChain(db, chain.id, {
          status,
          current_step: decision.currentStep,
          updated_at: now,
        });
        const step = steps[move.step]!;
        const started = await this.start(db, chain, step, steps, stepPlan, now);
        steps[move.step] = started;
        if (started.status === 'running') return;
        continue;
      }
      if (move.kind === 'fail') {
        for (const index of stepsToCancel(steps.map((s) => s.status))) {
          steps[index] = await updateStep(db, chain.id, index, {
            status: assertStepTransition(steps[index]!.status, 'cancel'),
          });
        }
      }
      chain = await updateChain(db, chain.id, {
        status,
        current_step: decision.currentStep,
        completed_at: now,
        updated_at: now,
      });
      const results = steps.map(stepResult);
      await recordAudit(db, chain.account_id, {
        action: move.kind === 'fail' ? 'chain.fail' : 'chain.complete',
        resource: { type: 'chain', id: chain.id },
        details: {
          status: chain.status,
          ...(move.kind === 'fail' ? { failed_step: move.step } : {}),
          steps: results.map((r) => ({ index: r.index, status: r.status, outcome: r.outcome })),
        },
      });
      if (move.kind === 'fail') {
        await this.p.callbacks.enqueue(db, chain, 'chain.failed', {
          status: 'failed',
          failed_step: results[move.step],
          steps: results,
        });
      } else {
        await this.p.callbacks.enqueue(db, chain, 'chain.completed', { status: 'completed', steps: results });
      }
      return;
    }
  }

  /** What the running step's work has become, or null while it is still under way. */
  private async observe(db: Sql, step: ChainStepRow, now: Date): Promise<StepSettlement | null> {
    if (step.type === 'wait') return step.due_at && step.due_at <= now ? { kind: 'delay_elapsed' } : null;
    if (!step.action_id) return { kind: 'not_run', error: 'the step lost its action' };
    const action = await lockAction(db, step.action_id);
    if (!action) return { kind: 'not_run', error: 'the step lost its action' };
    return step.type === 'webhook' ? webhookSettlement(action) : gateSettlement(action);
  }

  private async settle(
    db: Sql,
    chain: ChainRow,
    step: ChainStepRow,
    settlement: StepSettlement,
    now: Date,
  ): Promise<ChainStepRow> {
    const settled = settleStep(step.type, settlement, chain.error_handling);
    const row = await updateStep(db, chain.id, step.index, {
      status: assertStepTransition(step.status, settled.event),
      outcome: settled.outcome,
      error: settled.error,
      due_at: null,
      completed_at: now,
    });
    await recordAudit(db, chain.account_id, stepAudit(chain, row, 'chain.step.settle'));
    await this.p.callbacks.enqueue(db, chain, 'chain.step.completed', {
      chain_status: chain.status,
      step: stepResult(row),
      response: writableResponse(stepResponse(row.response), row.response),
    });
    return row;
  }

  /**
   * Starts a step: its condition and expressions are read now, against the steps settled so far. A false condition
   * or a step that cannot run settles at once (from `pending`); otherwise the step is `running` on its action or
   * its due time.
   */
  private async start(
    db: Sql,
    chain: ChainRow,
    step: ChainStepRow,
    steps: readonly ChainStepRow[],
    plan: Plan,
    now: Date,
  ): Promise<ChainStepRow> {
    const scope = chainScope(chain.input, chainContext(steps));
    const settleNow = (settlement: StepSettlement) => this.settle(db, chain, step, settlement, now);
    const def = step.definition;
    let work: StepWork | { kind: 'wait'; ms: number };
    try {
      if (!conditionHolds(def.condition, scope)) return settleNow({ kind: 'condition_false' });
      work = workOf(step.type, def, scope, chain.created_via === 'api');
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return settleNow({ kind: 'not_run', error: expressionFailure(error) });
    }
    const running = { status: assertStepTransition(step.status, 'start'), started_at: now };
    if (work.kind === 'wait') {
      // A wait the user chose: SCHED_TIME_SCALE does not shorten it.
      const waiting = await updateStep(db, chain.id, step.index, {
        ...running,
        due_at: new Date(now.getTime() + work.ms),
      });
      await recordAudit(db, chain.account_id, stepAudit(chain, waiting, 'chain.step.start'));
      // The workers' scan is a slow safety net: told the due time at commit, a worker wakes for it on time.
      if (waiting.due_at) await announceChainDue(db, chain.id, waiting.due_at);
      return waiting;
    }
    const created = await createStepAction(
      db,
      {
        chainId: chain.id,
        chainName: chain.name,
        accountId: chain.account_id,
        plan,
        stepIndex: step.index,
        stepName: step.name,
        source: chain.created_via,
      },
      work,
      now,
      this.p,
    );
    if (!created.ok) return settleNow({ kind: 'not_run', error: created.error });
    const started = await updateStep(db, chain.id, step.index, { ...running, action_id: created.actionId });
    await recordAudit(db, chain.account_id, stepAudit(chain, started, 'chain.step.start'));
    return started;
  }
}

/**
 * A step's state change in the audit log: which step, its status and outcome (and its action); never the values it
 * resolved (they may carry the chain's input or an earlier step's response).
 */
function stepAudit(
  chain: ChainRow,
  step: ChainStepRow,
  action: 'chain.step.start' | 'chain.step.settle',
): AuditRecord {
  return {
    action,
    resource: { type: 'chain', id: chain.id },
    details: {
      index: step.index,
      name: step.name,
      type: step.type,
      status: step.status,
      // An error may name who declined a gate: never an address in the log (docs/audit.md).
      ...(action === 'chain.step.settle'
        ? { outcome: step.outcome, error: shownText(step.error, false) }
        : {}),
      action_id: step.action_id,
    },
  };
}

function workOf(
  type: StepType,
  def: ChainStepRow['definition'],
  scope: ReturnType<typeof chainScope>,
  inputIsOwners: boolean,
): StepWork | { kind: 'wait'; ms: number } {
  switch (type) {
    case 'webhook': {
      const http = def as HttpCallStepParsed;
      return {
        kind: 'webhook',
        request: resolveHttpCall(http, scope, inputIsOwners),
        max_attempts: http.max_attempts,
        retry_strategy: http.retry_strategy,
        webhook_secret: http.webhook_secret,
        delivery_window: http.delivery_window,
      };
    }
    case 'approval':
      return {
        kind: 'approval',
        gate: interpolateGate(def as GatedStepParsed, scope),
        fromValues: indexesWithExpressions((def as GatedStepParsed).gate.recipients),
        delivery_window: (def as GatedStepParsed).delivery_window,
      };
    case 'wait':
      return { kind: 'wait', ms: delayMs(def as DelayStepParsed) };
  }
}

/**
 * The response as the callback payload carries it: a value that cannot be written as JSON (stepResponse bounds the
 * depth, so this is a last guard) goes as the raw text, so a responder can never make the enqueue throw inside the
 * chain's transaction and keep the step due forever, holding up the scan for every chain.
 */
function writableResponse(response: unknown, raw: string | null): unknown {
  try {
    JSON.stringify(response);
    return response;
  } catch {
    return raw;
  }
}

/** An HTTP step's action in a terminal state, read as a settlement; null while it is live. */
function webhookSettlement(action: ActionRow): StepSettlement | null {
  switch (action.status) {
    case 'executed':
      return { kind: 'http_succeeded' };
    case 'failed':
      return { kind: 'http_failed', error: action.last_error ?? 'delivery failed' };
    case 'cancelled':
    case 'expired':
      return { kind: 'not_run', error: `the step's action was ${action.status}` };
    default:
      return null;
  }
}

/**
 * A gate step's action: executed is a confirmation (also by `on_timeout: approve`), failed a decline, expired a
 * timeout with `expire`; cancelled is a timeout with `cancel` when the gate timed out, else the action was cancelled.
 */
function gateSettlement(action: ActionRow): StepSettlement | null {
  switch (action.status) {
    case 'executed':
      return { kind: 'gate_confirmed' };
    case 'failed':
      return { kind: 'gate_declined' };
    case 'expired':
      return { kind: 'gate_timed_out', onTimeout: 'expire' };
    case 'cancelled':
      return action.gate?.on_timeout === 'cancel' && action.last_error?.startsWith('no answer')
        ? { kind: 'gate_timed_out', onTimeout: 'cancel' }
        : { kind: 'not_run', error: "the step's action was cancelled" };
    default:
      return null;
  }
}
