import { z } from 'zod';
import {
  ActionMode,
  ActionRequestView,
  AllowedOrigins,
  ActionStatus,
  DedupKeys,
  HttpRequestConfig,
  jsonDepth,
  MAX_ATTEMPTS_CEILING,
  MAX_JSON_DEPTH,
  RetryStrategy,
  Schedule,
  WebhookSecret,
} from './action.js';
import { GateInput } from './approval.js';
import { ChainErrorHandling, ChainStatus, ChainStepDefinitionView, ChainSteps } from './chain.js';
import { NullableTimestamp, paginationQuery, Timestamp, Uuid } from './common.js';
import { DeliveryWindow } from './window.js';

/** Templates: a saved action or chain with `{{placeholders}}`, fired through `POST /t/{token}`. */
export const TEMPLATE_TYPES = Object.freeze(['action', 'chain'] as const);
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/** Templates per account by plan. */
export const TEMPLATE_LIMITS = Object.freeze({ free: 3, pro: 25, business: 100 } as const);

export const PLACEHOLDER_NAME = /^[A-Za-z0-9_]{1,64}$/;
/**
 * Names a placeholder cannot take: `input` and `steps` are the roots of chain expressions, and `schedule` is the
 * trigger body's own field.
 */
export const RESERVED_PLACEHOLDER_NAMES = Object.freeze(['input', 'steps', 'schedule'] as const);
export const MAX_PLACEHOLDERS = 50;

/**
 * What a public trigger may spend when the owner sets nothing: low on purpose, since whoever holds the URL
 * spends the owner's allowances. A chain template counts each chain's steps against these caps.
 */
export const TRIGGER_DEFAULTS = Object.freeze({ per_hour: 20, per_day: 100, max_schedule_days: 30 } as const);
export const TRIGGER_LIMIT_MAX = 100_000;

export const TemplateTypeSchema = z.enum(TEMPLATE_TYPES).meta({ id: 'TemplateType' });

/** Names that would reach the prototype of a plain object; refused so that no value map can be tricked. */
export const FORBIDDEN_PLACEHOLDER_NAMES = Object.freeze(['__proto__', 'constructor', 'prototype'] as const);
export const PLACEHOLDER_TYPES = Object.freeze(['string', 'integer', 'number', 'boolean'] as const);
export type PlaceholderType = (typeof PLACEHOLDER_TYPES)[number];

/** Whether `value` is of placeholder `type` as JSON (a default, a JSON trigger value); forms are coerced elsewhere. */
export function isOfPlaceholderType(value: unknown, type: PlaceholderType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

export const PlaceholderDefinition = z
  .object({
    name: z
      .string()
      .regex(PLACEHOLDER_NAME, 'must be 1 to 64 letters, digits or underscores')
      .refine((n) => !(RESERVED_PLACEHOLDER_NAMES as readonly string[]).includes(n), {
        message: `is reserved (${RESERVED_PLACEHOLDER_NAMES.join(', ')})`,
      })
      .refine((n) => !(FORBIDDEN_PLACEHOLDER_NAMES as readonly string[]).includes(n), {
        message: `cannot be ${FORBIDDEN_PLACEHOLDER_NAMES.join(', ')}`,
      }),
    required: z.boolean().default(false),
    description: z.string().max(1000).optional(),
    type: z.enum(PLACEHOLDER_TYPES).optional().meta({
      description:
        'A trigger value is converted to this type (form fields arrive as text) or refused with 422; without a type a value is text.',
    }),
    pattern: z.string().min(1).max(500).optional().meta({
      description: 'A regular expression the whole value (as text) must match.',
    }),
    max_length: z.number().int().min(1).max(10_000).optional().meta({
      description: 'The longest value accepted, in characters (default 1,000).',
    }),
    enum: z
      .array(z.union([z.string().max(1000), z.number(), z.boolean()]))
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'The only values accepted.' }),
    default: z
      .unknown()
      .optional()
      .meta({ description: 'Any JSON value; used when the trigger omits the value.' }),
  })
  .superRefine((p, ctx) => {
    if (p.required && p.default !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'a required placeholder takes no default' });
    }
    if (
      p.type !== undefined &&
      p.default !== undefined &&
      p.default !== null &&
      !isOfPlaceholderType(p.default, p.type)
    ) {
      ctx.addIssue({ code: 'custom', path: ['default'], message: `must be of type ${p.type}` });
    }
    if (p.pattern !== undefined) {
      try {
        new RegExp(p.pattern, 'u');
      } catch {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'is not a valid regular expression' });
      }
    }
  })
  .meta({
    id: 'PlaceholderDefinition',
    examples: [{ name: 'order_id', required: true, description: 'The order to follow up' }],
  });
export type PlaceholderDefinition = z.output<typeof PlaceholderDefinition>;

export const Placeholders = z
  .array(PlaceholderDefinition)
  .max(MAX_PLACEHOLDERS)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'is declared twice' });
      seen.add(p.name);
    });
  });

const templateFields = {
  name: z.string().trim().min(1).max(255).meta({ description: 'Takes `{{placeholders}}`.' }),
  description: z.string().max(1000).optional(),
  type: TemplateTypeSchema.optional().meta({ description: 'Default `action`.' }),
  mode: ActionMode.optional().meta({ description: 'Required for type `action`.' }),
  timezone: z.string().max(64).optional(),
  request_config: HttpRequestConfig.optional().meta({
    description:
      'Webhook mode (required), or the request run after approval. URL, headers and body take placeholders.',
  }),
  allowed_origins: AllowedOrigins.optional(),
  gate_config: GateInput.optional().meta({
    description: 'Approval mode (required). Message and recipients take placeholders.',
  }),
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_CEILING).optional(),
  retry_strategy: RetryStrategy.optional(),
  webhook_secret: WebhookSecret.optional(),
  callback_url: z.string().min(1).max(2048).optional(),
  chain_steps: ChainSteps.optional().meta({ description: 'Required for type `chain`: 2 to 20 steps.' }),
  chain_error_handling: ChainErrorHandling.optional(),
  placeholders: Placeholders.optional(),
  dedup_keys: DedupKeys.max(10)
    .optional()
    .meta({ description: 'Up to 10; take placeholders, checked once resolved.' }),
  trigger_limit_per_hour: z
    .number()
    .int()
    .min(1)
    .max(TRIGGER_LIMIT_MAX)
    .optional()
    .meta({ description: `Triggers accepted per hour (default ${TRIGGER_DEFAULTS.per_hour}).` }),
  trigger_limit_per_day: z
    .number()
    .int()
    .min(1)
    .max(TRIGGER_LIMIT_MAX)
    .optional()
    .meta({ description: `Triggers accepted per UTC day (default ${TRIGGER_DEFAULTS.per_day}).` }),
  delivery_window: DeliveryWindow.optional().meta({
    description:
      "When the actions it makes may fire (as an action's `delivery_window`); takes no placeholders.",
  }),
  max_schedule_days: z
    .number()
    .int()
    .min(1)
    .max(365)
    .optional()
    .meta({
      description: `How far ahead a trigger's schedule may reach, in days (default ${TRIGGER_DEFAULTS.max_schedule_days}).`,
    }),
};

type TemplateShape = {
  type?: TemplateType | undefined;
  mode?: 'webhook' | 'approval' | undefined;
  request_config?: unknown;
  gate_config?: unknown;
  chain_steps?: unknown;
};

/**
 * The fields a template of each type and mode must hold. The create body checks it; an update checks it on the
 * template as it would be after the change.
 */
export function templateShapeIssues(t: TemplateShape): { path: string[]; message: string }[] {
  if ((t.type ?? 'action') === 'chain') {
    return t.chain_steps === undefined
      ? [{ path: ['chain_steps'], message: 'is required for a chain template' }]
      : [];
  }
  if (t.mode === undefined) return [{ path: ['mode'], message: 'is required for an action template' }];
  if (t.mode === 'webhook' && t.request_config === undefined) {
    return [{ path: ['request_config'], message: 'is required in webhook mode' }];
  }
  if (t.mode === 'approval' && t.gate_config === undefined) {
    return [{ path: ['gate_config'], message: 'is required in approval mode' }];
  }
  return [];
}

export const TemplateCreateBody = z
  .object(templateFields)
  .superRefine((t, ctx) => {
    for (const issue of templateShapeIssues(t)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .meta({
    id: 'TemplateCreate',
    examples: [
      {
        name: 'Follow up order {{order_id}}',
        mode: 'webhook',
        request_config: { url: 'https://hooks.example.com/orders/{{order_id}}/follow-up', method: 'POST' },
        placeholders: [{ name: 'order_id', required: true }],
      },
    ],
  });
export type TemplateCreateBody = z.input<typeof TemplateCreateBody>;
export type TemplateCreateParsed = z.output<typeof TemplateCreateBody>;

/**
 * Fields an update may clear with `null` (the template's default applies again). With `name`, `type`, `mode` and
 * `timezone` they are the template's whole definition (server/src/app/templates/definition.ts).
 */
export const TEMPLATE_CLEARABLE_FIELDS = [
  'description',
  'request_config',
  'gate_config',
  'allowed_origins',
  'max_attempts',
  'retry_strategy',
  'webhook_secret',
  'callback_url',
  'chain_steps',
  'chain_error_handling',
  'placeholders',
  'dedup_keys',
  'trigger_limit_per_hour',
  'trigger_limit_per_day',
  'max_schedule_days',
  'delivery_window',
] as const satisfies readonly (keyof typeof templateFields)[];

/**
 * Only the fields given change; the trigger URL stays. A field given replaces the stored one whole (request_config,
 * gate_config and chain_steps are not merged); `null` clears an optional field. The template as it then stands is
 * checked like a create.
 */
export const TemplateUpdateBody = z
  .object({
    ...templateFields,
    name: templateFields.name.optional(),
    ...(Object.fromEntries(TEMPLATE_CLEARABLE_FIELDS.map((k) => [k, templateFields[k].nullable()])) as {
      [K in (typeof TEMPLATE_CLEARABLE_FIELDS)[number]]: z.ZodNullable<(typeof templateFields)[K]>;
    }),
  })
  .meta({ id: 'TemplateUpdate' });
export type TemplateUpdateBody = z.input<typeof TemplateUpdateBody>;

export const TemplateStatistics = {
  trigger_count: z.number().int(),
  failed_trigger_count: z
    .number()
    .int()
    .meta({ description: 'Triggers refused with 422 (e.g. a missing value).' }),
  last_triggered_at: NullableTimestamp,
  last_failed_at: NullableTimestamp,
  last_error: z.string().nullable().meta({ description: 'Why the last refused trigger was refused.' }),
};

export const Template = z
  .object({
    id: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    type: TemplateTypeSchema,
    mode: ActionMode.nullable().meta({ description: 'null for chain templates.' }),
    timezone: z.string(),
    request_config: ActionRequestView.nullable(),
    allowed_origins: z.array(z.string()),
    gate_config: GateInput.nullable(),
    max_attempts: z
      .number()
      .int()
      .meta({ description: 'What a trigger applies: the value set, else 5 capped by the plan.' }),
    retry_strategy: RetryStrategy.meta({
      description: 'What a trigger applies: the value set, else exponential.',
    }),
    signed: z.boolean().meta({ description: 'Whether a webhook_secret is set (it is never shown).' }),
    callback_url: z.string().nullable(),
    chain_steps: z.array(ChainStepDefinitionView).nullable(),
    chain_error_handling: ChainErrorHandling.nullable(),
    delivery_window: DeliveryWindow.nullable(),
    placeholders: z.array(PlaceholderDefinition),
    dedup_keys: z.array(z.string()),
    trigger_limit_per_hour: z
      .number()
      .int()
      .meta({ description: 'The cap in force (the default when not set).' }),
    trigger_limit_per_day: z
      .number()
      .int()
      .meta({ description: 'The cap in force (the default when not set).' }),
    max_schedule_days: z
      .number()
      .int()
      .meta({ description: 'The horizon in force (the default when not set).' }),
    trigger_token: z.string().meta({
      description:
        'In full only in the create and regenerate answers (it is stored as a hash); elsewhere its first characters and `…`.',
    }),
    trigger_url: z
      .string()
      .meta({ description: '`{trigger_base}/t/<trigger_token>`, masked like the token.' }),
    is_active: z.boolean(),
    ...TemplateStatistics,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Template' });
export type Template = z.infer<typeof Template>;

export const TemplateSummary = z
  .object({
    id: Uuid,
    name: z.string(),
    type: TemplateTypeSchema,
    mode: ActionMode.nullable(),
    is_active: z.boolean(),
    trigger_count: z.number().int(),
    last_triggered_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'TemplateSummary' });
export type TemplateSummary = z.infer<typeof TemplateSummary>;

export const TemplateListQuery = z.object({
  type: TemplateTypeSchema.optional(),
  ...paginationQuery(25),
});

export const TemplateLimits = z
  .object({
    current: z.number().int(),
    max: z.number().int(),
    remaining: z.number().int(),
    plan: z.enum(['free', 'pro', 'business']),
  })
  .meta({ id: 'TemplateLimits' });

export const RegeneratedToken = z
  .object({ message: z.string(), data: z.object({ trigger_token: z.string(), trigger_url: z.string() }) })
  .meta({ id: 'RegeneratedToken' });

export const ToggledTemplate = z
  .object({ message: z.string(), data: z.object({ id: Uuid, is_active: z.boolean() }) })
  .meta({ id: 'ToggledTemplate' });

/** A flat object of placeholder values (JSON or an HTML form), plus an optional schedule (default: in about 1 s). */
export const TriggerBody = z
  .object({ schedule: Schedule.optional() })
  .catchall(z.unknown())
  .refine((b) => jsonDepth(b) <= MAX_JSON_DEPTH, {
    message: `must nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
  })
  .meta({ id: 'TriggerBody' });
export type TriggerBody = z.input<typeof TriggerBody>;

export const TriggeredAction = z
  .object({
    id: Uuid,
    name: z.string(),
    mode: ActionMode,
    status: ActionStatus,
    template_id: Uuid,
    created_at: Timestamp,
  })
  .meta({ id: 'TriggeredAction' });

export const TriggeredChain = z
  .object({
    id: Uuid,
    name: z.string(),
    status: ChainStatus,
    current_step: z.number().int(),
    template_id: Uuid,
    created_at: Timestamp,
  })
  .meta({ id: 'TriggeredChain' });

export const TriggerAnswer = z
  .object({
    message: z.string(),
    data: z.union([TriggeredAction, TriggeredChain]),
    meta: z.object({
      ignored_keys: z.array(z.string()).meta({ description: 'Keys of the body that name no placeholder.' }),
    }),
  })
  .meta({ id: 'TriggerAnswer' });
export type TriggerAnswer = z.infer<typeof TriggerAnswer>;
