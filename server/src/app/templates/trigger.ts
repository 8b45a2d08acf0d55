import {
  ActionCreateBody,
  ChainCreateBody,
  TRIGGER_DEFAULTS,
  type TriggerAnswer,
  TriggerBody,
} from '@sched/contract';
import {
  InvalidPlaceholderError,
  MissingPlaceholderError,
  placeholderValues,
  resolveActionTemplate,
  resolveChainTemplate,
  storedTemplateErrors,
} from '../../domain/template/placeholders.js';
import { hashTriggerToken } from '../../domain/template/token.js';
import { ExpressionError } from '../../domain/expressions/errors.js';
import { indexesWithExpressions } from '../../domain/expressions/syntax.js';
import { recipientsFromDirectory, sqlDirectory } from '../directory/recipients.js';
import { findActiveByTokenHash, recordFailedTrigger, recordTrigger } from '../../persistence/templates.js';
import { type Principal, triggerKeyId } from '../accounts.js';
import { actingAs, principalActor } from '../audit.js';
import type { ActionService } from '../actions/service.js';
import type { ChainService } from '../chains/service.js';
import {
  evaluate,
  RATE_LIMITS,
  type RateLimitRule,
  type RateLimitState,
  tightest,
  windowStart,
} from '../../domain/rate-limit/policy.js';
import { countHits, refundHits, type WindowHit } from '../../persistence/rate-limit-windows.js';
import { prepareAction } from '../actions/prepare.js';
import { issuesToErrors, NotFoundError, RateLimitedError, ValidationError } from '../errors.js';
import type { Clock, Store } from '../ports.js';

type TriggeredTemplate = NonNullable<Awaited<ReturnType<typeof findActiveByTokenHash>>>;

/** Without a schedule in the trigger body the action runs in about a second. */
const DEFAULT_SCHEDULE = { wait: '1s' } as const;

/**
 * `POST /t/<token>`: finds the active template by its token's hash, resolves its placeholders from the
 * body's values and creates the action (or the chain) through the same use case as `POST /actions` (`POST /chains`),
 * so every rule of a create (validation, destinations, plan, quota, dedup) holds. A 422 counts in the template's
 * failed triggers.
 */
export class TemplateTrigger {
  constructor(
    private readonly deps: { store: Store; clock: Clock; actions: ActionService; chains: ChainService },
  ) {}

  /**
   * `onLimits` hears the template's trigger caps as counted for this trigger (the tighter of hour and day), for the
   * X-RateLimit-* headers; past a cap the trigger is refused with 429, so a trigger URL cannot spend the owner's allowances.
   */
  async trigger(
    token: string,
    body: unknown,
    onLimits: (state: RateLimitState) => void = () => {},
  ): Promise<TriggerAnswer> {
    const template = await findActiveByTokenHash(this.deps.store.sql, hashTriggerToken(token));
    // Unknown, regenerated, deleted and inactive tokens all end here, after the same single lookup.
    if (!template) throw new NotFoundError('template');
    const counted = await this.countTrigger(template);
    onLimits(counted.state);
    try {
      if (!counted.state.allowed) throw new RateLimitedError(counted.state.retryAfterSeconds);
      const answer = await this.create(template, body);
      await recordTrigger(this.deps.store.sql, template.id, this.deps.clock());
      return answer;
    } catch (err) {
      // Only an accepted trigger spends the caps: the per-IP and per-token limits bound the refused ones, so a
      // stranger's invalid requests cannot lock a published form for the hour.
      await refundHits(this.deps.store.sql, counted.windows, counted.weight);
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

  /**
   * Counts this trigger against the template's caps per UTC hour and day, apart from the owner's own API limits. A
   * chain template counts each chain's steps. Counted before the create (two triggers at once never both pass the
   * last place); the caller refunds a trigger that is then refused.
   */
  private async countTrigger(
    template: TriggeredTemplate,
  ): Promise<{ state: RateLimitState; windows: WindowHit[]; weight: number }> {
    const now = this.deps.clock();
    const rules: RateLimitRule[] = [
      {
        name: 'templateTriggersPerHour',
        subject: template.id,
        limit: template.trigger_limit_per_hour ?? TRIGGER_DEFAULTS.per_hour,
        windowSeconds: RATE_LIMITS.templateTriggersPerHour.windowSeconds,
      },
      {
        name: 'templateTriggersPerDay',
        subject: template.id,
        limit: template.trigger_limit_per_day ?? TRIGGER_DEFAULTS.per_day,
        windowSeconds: RATE_LIMITS.templateTriggersPerDay.windowSeconds,
      },
    ];
    const weight = template.type === 'chain' ? Math.max(1, template.chain_steps?.length ?? 1) : 1;
    const windows = rules.map((r) => {
      const start = windowStart(now, r.windowSeconds);
      return {
        bucket: `${r.name}:${r.subject}`,
        start,
        end: new Date(start.getTime() + r.windowSeconds * 1000),
      };
    });
    const hits = await countHits(this.deps.store.sql, windows, weight);
    const state = tightest(rules.map((r, i) => evaluate(r, hits.get(windows[i]!.bucket) ?? weight, now)));
    return { state, windows, weight };
  }

  private async create(template: TriggeredTemplate, body: unknown): Promise<TriggerAnswer> {
    try {
      return await this.resolveAndCreate(template, body);
    } catch (err) {
      // A value that does not fit where it goes (a URL's structure, a header line, JSON too deep) is the caller's
      // mistake: 422 naming the field, never a 500.
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
    // The rules a save applies, applied again to the template as stored: one saved by an older release (before
    // allowed_origins) must not let a trigger value choose where its credentials go.
    const stored = storedTemplateErrors(template);
    if (Object.keys(stored).length > 0) {
      throw new ValidationError(
        stored,
        'this template no longer passes the checks of a save; its owner must edit it (PUT /v1/templates/{id})',
      );
    }
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
      keyId: triggerKeyId(template.id),
      scopes: ['write'],
    };
    const meta = { ignored_keys: found.ignored };
    // The audit log names the template as the actor (the request's address and id stay).
    return actingAs(principalActor(principal.keyId), async () =>
      template.type === 'chain'
        ? {
            message: 'Chain created from template',
            data: await this.startChain(template, found.values, principal),
            meta,
          }
        : {
            message: 'Action created from template',
            data: await this.scheduleAction(template, found.values, schedule, principal),
            meta,
          },
    );
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
    let gate = resolved.gate_config;
    if (gate && template.gate_config) {
      // An anonymous caller never chooses who approves: recipients from values must be in the directory.
      const chosen = await recipientsFromDirectory(
        gate.recipients,
        indexesWithExpressions(template.gate_config.recipients),
        sqlDirectory(this.deps.store.sql, template.account_id),
        'gate_config.recipients',
      );
      if (!chosen.ok)
        throw new ValidationError(
          chosen.errors,
          "a recipient must be one of the account's contacts or team members",
        );
      gate = { ...gate, recipients: chosen.recipients };
    }
    const body = ActionCreateBody.safeParse({
      mode: template.mode ?? 'webhook',
      name: resolved.name,
      timezone: template.timezone,
      schedule: schedule ?? DEFAULT_SCHEDULE,
      ...(template.description !== null && { description: template.description }),
      ...(resolved.request_config && { request: resolved.request_config }),
      ...(gate && { gate }),
      ...(template.max_attempts !== null && { max_attempts: template.max_attempts }),
      ...(template.retry_strategy !== null && { retry_strategy: template.retry_strategy }),
      ...(template.webhook_secret !== null && { webhook_secret: template.webhook_secret }),
      ...(template.callback_url !== null && { callback_url: template.callback_url }),
      ...(template.delivery_window !== null && { delivery_window: template.delivery_window }),
      ...(resolved.dedup_keys && resolved.dedup_keys.length > 0 && { dedup_keys: resolved.dedup_keys }),
    });
    if (!body.success) {
      throw new ValidationError(
        issuesToErrors(body.error.issues, 'body'),
        'the action this trigger resolves to is invalid',
      );
    }
    // An anonymous caller may not book the owner's allowances far ahead.
    const prepared = prepareAction(body.data, {
      plan: principal.plan,
      now: this.deps.clock(),
      allowPrivateDestinations: true, // only the schedule is read here; create checks the destination
    });
    const days = template.max_schedule_days ?? TRIGGER_DEFAULTS.max_schedule_days;
    if (prepared.ok && prepared.action.at.getTime() > this.deps.clock().getTime() + days * 86_400_000) {
      throw new ValidationError(
        {
          schedule: [`a trigger may schedule at most ${days} days ahead (the template's max_schedule_days)`],
        },
        `the schedule is more than ${days} days ahead`,
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
