import {
  type ChainStepDefinitionView,
  type ChainStepParsed,
  TRIGGER_DEFAULTS,
  type Template,
  type TemplateSummary,
} from '@sched/contract';
import { shownAddress, shownHeaders, shownText, shownUrl } from '../../domain/auth/api-key.js';
import { effectiveMaxAttempts, type Plan } from '../../domain/quota/plans.js';
import { maskedToken, triggerUrl } from '../../domain/template/token.js';
import type { TemplateRow } from '../../persistence/templates.js';

/** A stored step as shown: never its webhook_secret (`signed` instead), header values only with `credentials`. */
export function stepDefinitionView(step: ChainStepParsed, credentials: boolean): ChainStepDefinitionView {
  if (step.type === 'gated' || step.type === 'approval') {
    const gate = { ...step.gate, recipients: step.gate.recipients.map((r) => shownAddress(r, credentials)) };
    return { ...step, gate } as ChainStepDefinitionView;
  }
  if (step.type !== 'http_call' && step.type !== 'webhook') return step as ChainStepDefinitionView;
  const { webhook_secret: secret, ...rest } = step;
  return { ...rest, headers: shownHeaders(step.headers, credentials), signed: secret !== undefined };
}

/**
 * The API's view of a template. `credentials`: whether the caller's key may see stored header values (a read-only key never does). `token` is the secret itself, known only when it was just made (create,
 * regenerate); otherwise only its hash is stored and the view shows its first characters and `…`.
 */
export function templateView(
  row: TemplateRow,
  publicUrl: string,
  opts: { token?: string; credentials: boolean; plan: Plan },
): Template {
  const { token, credentials } = opts;
  // TP16: the view shows what a trigger will apply, not null.
  const attempts = effectiveMaxAttempts(row.max_attempts, opts.plan);
  const shown = token ?? maskedToken(row.token_prefix);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    mode: row.mode,
    timezone: row.timezone,
    request_config: row.request_config && {
      ...row.request_config,
      headers: shownHeaders(row.request_config.headers, credentials),
    },
    allowed_origins: row.allowed_origins,
    gate_config: row.gate_config && {
      ...row.gate_config,
      recipients: row.gate_config.recipients.map((r) => shownAddress(r, credentials)),
    },
    max_attempts: attempts.ok ? attempts.maxAttempts : (row.max_attempts ?? 0),
    retry_strategy: row.retry_strategy ?? 'exponential',
    signed: row.webhook_secret !== null,
    callback_url: row.callback_url === null ? null : shownUrl(row.callback_url, credentials),
    chain_steps: row.chain_steps?.map((step) => stepDefinitionView(step, credentials)) ?? null,
    chain_error_handling: row.chain_error_handling,
    delivery_window: row.delivery_window,
    placeholders: row.placeholders,
    dedup_keys: row.dedup_keys,
    trigger_limit_per_hour: row.trigger_limit_per_hour ?? TRIGGER_DEFAULTS.per_hour,
    trigger_limit_per_day: row.trigger_limit_per_day ?? TRIGGER_DEFAULTS.per_day,
    max_schedule_days: row.max_schedule_days ?? TRIGGER_DEFAULTS.max_schedule_days,
    trigger_token: shown,
    trigger_url: triggerUrl(publicUrl, shown),
    is_active: row.is_active,
    trigger_count: row.trigger_count,
    failed_trigger_count: row.failed_trigger_count,
    last_triggered_at: row.last_triggered_at?.toISOString() ?? null,
    last_failed_at: row.last_failed_at?.toISOString() ?? null,
    last_error: shownText(row.last_error, credentials),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function templateSummary(row: TemplateRow): TemplateSummary {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    mode: row.mode,
    is_active: row.is_active,
    trigger_count: row.trigger_count,
    last_triggered_at: row.last_triggered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
