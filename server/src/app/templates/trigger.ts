import { ActionCreateBody, ChainCreateBody, type TriggerAnswer, TriggerBody } from '@sched/contract';
import {
  InvalidPlaceholderError,
  MissingPlaceholderError,
  placeholderValues,
  resolveActionTemplate,
  resolveChainTemplate,
} from '../../domain/template/placeholders.js';
import { hashTriggerToken } from '../../domain/template/token.js';
import { ExpressionError } from '../../domain/expressions/errors.js';
import { findActiveByTokenHash, recordFailedTrigger, recordTrigger } from '../../persistence/templates.js';
import type { Principal } from '../accounts.js';
import type { ActionService } from '../actions/service.js';
import type { ChainService } from '../chains/service.js';
import { issuesToErrors, NotFoundError, ValidationError } from '../errors.js';
import type { Clock, Store } from '../ports.js';

type TriggeredTemplate = NonNullable<Awaited<ReturnType<typeof findActiveByTokenHash>>>;

/** Without a schedule in the trigger body the action runs in about a second (spec 4.3). */
const DEFAULT_SCHEDULE = { wait: '1s' } as const;

/**
 * `POST /t/<token>` (spec 4.3): finds the active template by its token's hash, resolves its placeholders from the
 * body's values and creates the action (or the chain) through the same use case as `POST /actions` (`POST /chains`),
 * so every rule of a create (validation, destinations, plan, quota, dedup) holds. A 422 counts in the template's
 * failed triggers.
 */
export class TemplateTrigger {
  constructor(
    private readonly deps: { store: Store; clock: Clock; actions: ActionService; chains: ChainService },
  ) {}

  async trigger(token: string, body: unknown): Promise<TriggerAnswer> {
    const template = await findActiveByTokenHash(this.deps.store.sql, hashTriggerToken(token));
    // Unknown, regenerated, deleted and inactive tokens all end here, after the same single lookup.
    if (!template) throw new NotFoundError('template');
    try {
      const answer = await this.create(template, body);
      await recordTrigger(this.deps.store.sql, template.id, this.deps.clock());
      return answer;
    } catch (err) {
      if (err instanceof ValidationError) {
        const reason = Object.entries(err.errors)
          .map(([path, messages]) => `${path}: ${messages.join('; ')}`)
          .join(' | ');
        await recordFailedTrigger(
          this.deps.store.sql,
          template.id,
          this.deps.clock(),
          (reason || err.message).slice(0, 1000),
        );
      }
      throw err;
    }
  }

  private async create(template: TriggeredTemplate, body: unknown): Promise<TriggerAnswer> {
    try {
      return await this.resolveAndCreate(template, body);
    } catch (err) {
      // A value that does not fit where it goes (a URL's structure, a header line, JSON too deep) is the caller's
      // mistake: 422 naming the field, never a 500 (N-H1, N-L1).
      if (err instanceof ExpressionError) {
        throw new ValidationError(
          { [err.dottedPath || 'body']: [err.message] },
          `a value does not fit the template: ${err.message}`,
        );
      }
      throw err;
    }
  }

  private async resolveAndCreate(template: TriggeredTemplate, body: unknown): Promise<TriggerAnswer> {
    const parsed = TriggerBody.safeParse(body ?? {});
    if (!parsed.success) throw new ValidationError(issuesToErrors(parsed.error.issues, 'body'));
    const { schedule, ...supplied } = parsed.data;
    let found: ReturnType<typeof placeholderValues>;
    try {
      found = placeholderValues(template.placeholders, supplied);
    } catch (err) {
      if (err instanceof InvalidPlaceholderError) throw new ValidationError(err.errors, err.message);
      if (!(err instanceof MissingPlaceholderError)) throw err;
      throw new ValidationError(Object.fromEntries(err.names.map((n) => [n, ['is required']])), err.message);
    }
    // The template's account creates it, as if through its own API.
    const principal: Principal = {
      accountId: template.account_id,
      plan: template.plan,
      rateLimitFactor: template.rate_limit_factor,
      keyId: `template:${template.id}`,
      scopes: ['write'],
    };
    const meta = { ignored_keys: found.ignored };
    return template.type === 'chain'
      ? {
          message: 'Chain created from template',
          data: await this.startChain(template, found.values, principal),
          meta,
        }
      : {
          message: 'Action created from template',
          data: await this.scheduleAction(template, found.values, schedule, principal),
          meta,
        };
  }

  /** A chain starts at once: its steps carry their own delays, so a trigger's `schedule` has nothing to apply to. */
  private async startChain(
    template: TriggeredTemplate,
    values: Record<string, unknown>,
    principal: Principal,
  ) {
    const resolved = resolveChainTemplate(
      { name: template.name, chain_steps: template.chain_steps ?? [] },
      values,
    );
    const body = ChainCreateBody.safeParse({
      name: resolved.name,
      steps: resolved.steps,
      input: resolved.input,
      ...(template.chain_error_handling !== null && { error_handling: template.chain_error_handling }),
      ...(template.callback_url !== null && { callback_url: template.callback_url }),
      ...(template.webhook_secret !== null && { webhook_secret: template.webhook_secret }),
    });
    if (!body.success) {
      throw new ValidationError(
        issuesToErrors(body.error.issues, 'body'),
        'the chain this trigger resolves to is invalid',
      );
    }
    const c = await this.deps.chains.create(principal, body.data);
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      current_step: c.current_step,
      template_id: template.id,
      created_at: c.created_at,
    };
  }

  private async scheduleAction(
    template: TriggeredTemplate,
    values: Record<string, unknown>,
    schedule: TriggerBody['schedule'],
    principal: Principal,
  ) {
    const resolved = resolveActionTemplate(
      {
        name: template.name,
        request_config: template.request_config ?? undefined,
        gate_config: template.gate_config ?? undefined,
        dedup_keys: template.dedup_keys,
        allowed_origins: template.allowed_origins,
      },
      values,
    );
    const body = ActionCreateBody.safeParse({
      mode: template.mode ?? 'webhook',
      name: resolved.name,
      timezone: template.timezone,
      schedule: schedule ?? DEFAULT_SCHEDULE,
      ...(template.description !== null && { description: template.description }),
      ...(resolved.request_config && { request: resolved.request_config }),
      ...(resolved.gate_config && { gate: resolved.gate_config }),
      ...(template.max_attempts !== null && { max_attempts: template.max_attempts }),
      ...(template.retry_strategy !== null && { retry_strategy: template.retry_strategy }),
      ...(template.webhook_secret !== null && { webhook_secret: template.webhook_secret }),
      ...(template.callback_url !== null && { callback_url: template.callback_url }),
      ...(resolved.dedup_keys && resolved.dedup_keys.length > 0 && { dedup_keys: resolved.dedup_keys }),
    });
    if (!body.success) {
      throw new ValidationError(
        issuesToErrors(body.error.issues, 'body'),
        'the action this trigger resolves to is invalid',
      );
    }
    const { action: a } = await this.deps.actions.create(principal, body.data);
    return {
      id: a.id,
      name: a.name,
      mode: a.mode,
      status: a.status,
      template_id: template.id,
      created_at: a.created_at,
    };
  }
}
