import { hasExpression } from '../../domain/expressions/syntax.js';
import type { GatedStepParsed } from '../../domain/chain/definition.js';
import { resolveRecipients, sqlDirectory } from '../directory/recipients.js';
import { randomUUID } from 'node:crypto';
import type { CancelledChain, Chain, ChainCreateParsed, ChainSummary } from '@sched/contract';
import type { z } from 'zod';
import { isCancellable } from '../../domain/action/states.js';
import { chainStepErrors } from '../../domain/chain/definition.js';
import {
  assertChainTransition,
  assertStepTransition,
  isChainCancellable,
  stepsToCancel,
  stepTypeAlias,
} from '../../domain/chain/states.js';
import { planLimits } from '../../domain/quota/plans.js';
import {
  checkDestinationUrl,
  destinationSchemes,
  type PrivateAccess,
} from '../../domain/destinations/policy.js';
import { lockAction } from '../../persistence/actions.js';
import {
  findChain,
  insertChain,
  listChains,
  stepsOf,
  updateChain,
  updateStep,
} from '../../persistence/chains.js';
import { type Principal, sendSourceOf } from '../accounts.js';
import { applyActionEvent, type TransitionDeps } from '../actions/transition.js';
import { recordAudit } from '../audit.js';
import { type CountDestination, checkCallbackHost } from '../domains/guard.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { type Page, pageOf, pageWindow } from '../pagination.js';
import type { ChainCallbacks, Clock, Store } from '../ports.js';
import { type ChainEngine, stepResult } from './advance.js';
import { chainSummary, chainView } from './view.js';

type CancelledChainView = z.infer<typeof CancelledChain>;

/** Use cases of chains: create (and start), list, read, cancel. Every query is scoped to the caller's account. */
export class ChainService {
  constructor(
    private readonly store: Store,
    private readonly engine: ChainEngine,
    private readonly callbacks: ChainCallbacks,
    private readonly clock: Clock,
    private readonly options: {
      allowPrivateDestinations: PrivateAccess;
      /** The destination threshold (app/domains/guard.ts): checks the chain's `callback_url` host at create. */
      countDestination?: CountDestination;
      /** What a step's action's state change implies (app/actions/transition.ts), for a cancel. */
      transitions: TransitionDeps;
    },
  ) {}

  async create(principal: Principal, body: ChainCreateParsed): Promise<Chain> {
    if (!planLimits(principal.plan).chains) {
      throw new ForbiddenError(
        `chains need the business plan; this account is on the ${principal.plan} plan`,
        'plan_required',
      );
    }
    const errors = chainStepErrors(body.steps, {
      input: body.input,
      triggeredInput: sendSourceOf(principal) === 'trigger',
      urlSchemes: destinationSchemes(this.options.allowPrivateDestinations),
    });
    if (body.callback_url !== undefined) {
      const check = checkDestinationUrl(body.callback_url, {
        allowPrivate: this.options.allowPrivateDestinations,
      });
      if (!check.ok) errors.callback_url = [check.message];
    }
    // CH16: literal recipients are checked now, not only when their step starts (values are checked then).
    for (const [index, step] of body.steps.entries()) {
      if (stepTypeAlias(step.type) !== 'approval') continue;
      const { gate } = step as GatedStepParsed;
      const literal = gate.recipients.flatMap((r, i) => (hasExpression(r) ? [] : [[i, r] as const]));
      if (literal.length === 0) continue;
      const resolved = await resolveRecipients(
        literal.map(([, r]) => r),
        {
          channels: gate.channels,
          directory: sqlDirectory(this.store.sql, principal.accountId),
          field: 'x',
          slackTeamsAllowed: planLimits(principal.plan).slackTeams,
        },
      );
      if (!resolved.ok) {
        for (const [key, messages] of Object.entries(resolved.errors)) {
          const at = literal[Number(key.slice(2))]![0];
          errors[`steps.${index}.gate.recipients.${at}`] = messages;
        }
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const now = this.clock();
    await checkCallbackHost(
      this.options.countDestination,
      this.store.sql,
      principal.accountId,
      body.callback_url,
      now,
      {
        field: 'callback_url',
        source: sendSourceOf(principal),
      },
    );
    const id = randomUUID();
    return this.store.transaction(async (db) => {
      const chain = await insertChain(
        db,
        {
          id,
          account_id: principal.accountId,
          name: body.name,
          status: 'pending',
          current_step: 0,
          input: body.input,
          error_handling: body.error_handling,
          callback_url: body.callback_url ?? null,
          webhook_secret: body.webhook_secret ?? null,
          created_via: sendSourceOf(principal),
          created_at: now,
          updated_at: now,
        },
        body.steps.map((step, index) => ({
          id: randomUUID(),
          chain_id: id,
          index,
          name: step.name,
          type: stepTypeAlias(step.type),
          definition: step,
          status: 'pending',
        })),
      );
      // Its name and steps, never its input nor its webhook secret.
      await recordAudit(db, principal.accountId, {
        action: 'chain.create',
        resource: { type: 'chain', id },
        details: {
          name: chain.name,
          steps: body.steps.map((step) => ({ name: step.name, type: stepTypeAlias(step.type) })),
          error_handling: chain.error_handling,
          signed: chain.webhook_secret !== null,
        },
      });
      // The first step starts in the create's transaction: the chain is never left pending with nothing to run it.
      await this.engine.advanceLocked(db, chain, principal.plan);
      return this.view(db, principal.accountId, id);
    });
  }

  async list(
    accountId: string,
    q: { status?: Chain['status'] | undefined; page: number; per_page: number },
  ): Promise<Page<ChainSummary>> {
    const { rows, ...counted } = await listChains(
      this.store.sql,
      accountId,
      q.status ? { status: q.status } : {},
      pageWindow(q),
    );
    return pageOf(rows.map(chainSummary), counted, q);
  }

  /** `credentials`: whether the caller's key has `write` (else the callback URL shows its origin only). */
  async get(accountId: string, id: string, credentials = true): Promise<Chain> {
    return this.view(this.store.sql, accountId, id, credentials);
  }

  /**
   * Cancels a pending or running chain: its pending and running steps become `cancelled`, and the running step's
   * action is cancelled in the same transaction, so a waiting gate's links answer 410 at once. An HTTP request
   * already on the wire finishes, but nothing follows it.
   */
  async cancel(accountId: string, id: string): Promise<CancelledChainView> {
    return this.store.transaction(async (db) => {
      const chain = await findChain(db, accountId, id, { forUpdate: true });
      if (!chain) throw new NotFoundError('chain');
      if (!isChainCancellable(chain.status)) {
        throw new ConflictError(`chain ${chain.id} is ${chain.status} and cannot be cancelled`);
      }
      const now = this.clock();
      const steps = await stepsOf(db, chain.id);
      const toCancel = stepsToCancel(steps.map((s) => s.status));
      for (const index of toCancel) {
        const step = steps[index]!;
        if (step.action_id) {
          const action = await lockAction(db, step.action_id);
          if (action && isCancellable(action.status))
            await applyActionEvent(
              db,
              action,
              'chain_cancel',
              { now, error: 'the chain was cancelled' },
              this.options.transitions,
            );
        }
        steps[index] = await updateStep(db, chain.id, index, {
          status: assertStepTransition(step.status, 'cancel'),
          due_at: null,
          completed_at: step.status === 'running' ? now : null,
        });
      }
      const cancelled = await updateChain(db, chain.id, {
        status: assertChainTransition(chain.status, 'cancel'),
        completed_at: now,
        updated_at: now,
      });
      await recordAudit(db, accountId, {
        action: 'chain.cancel',
        resource: { type: 'chain', id: chain.id },
        details: {
          from_status: chain.status,
          cancelled_steps: toCancel.map((i) => steps[i]!.index),
        },
      });
      await this.callbacks.enqueue(db, cancelled, 'chain.cancelled', {
        status: 'cancelled',
        current_step: cancelled.current_step,
        steps: steps.map(stepResult),
      });
      return { id: chain.id, status: 'cancelled' as const };
    });
  }

  private async view(db: Store['sql'], accountId: string, id: string, credentials = true): Promise<Chain> {
    const chain = await findChain(db, accountId, id);
    if (!chain) throw new NotFoundError('chain');
    return chainView(chain, await stepsOf(db, chain.id), credentials);
  }
}
