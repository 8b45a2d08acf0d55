import { z } from 'zod';
import {
  AllowedOrigins,
  HttpRequestConfig,
  jsonDepth,
  MAX_ATTEMPTS_CEILING,
  MAX_JSON_DEPTH,
  RetryStrategy,
  WebhookSecret,
} from './action.js';
import { GateInput } from './approval.js';
import { Duration, NullableTimestamp, paginationQuery, Timestamp, Uuid } from './common.js';
import { DeliveryWindow } from './window.js';

/**
 * The vocabulary of chains, declared once here and imported by the server's domain.
 *
 * Glossary:
 * - chain state: the chain's `status` (pending, running, completed, failed, cancelled).
 * - step status: what the detail view shows for a step (pending, running, completed, failed, skipped, cancelled).
 * - step outcome: what `{{steps.N.status}}` reads once a step has settled (`executed`, `confirmed`, ...); it depends
 *   on the step type, and stays `failed` or `declined` when `skip_step` shows the step as `skipped`.
 * - step type: `http_call`, `gated`, `delay` on input; answers show the aliases `webhook`, `approval`, `wait`.
 */
export const CHAIN_STATES = Object.freeze([
  'pending',
  'running',
  'completed',
  'failed',
  'cancelled',
] as const);
export type ChainState = (typeof CHAIN_STATES)[number];

export const STEP_STATUSES = Object.freeze([
  'pending',
  'running',
  'completed',
  'failed',
  'skipped',
  'cancelled',
] as const);
export type StepStatus = (typeof STEP_STATUSES)[number];

/** Request type -> the alias that answers show. Input accepts both spellings. */
export const STEP_TYPE_ALIASES = Object.freeze({
  http_call: 'webhook',
  gated: 'approval',
  delay: 'wait',
} as const);
export type StepRequestType = keyof typeof STEP_TYPE_ALIASES;
export type StepType = (typeof STEP_TYPE_ALIASES)[StepRequestType];
export const STEP_TYPES = Object.freeze([
  'webhook',
  'approval',
  'wait',
] as const satisfies readonly StepType[]);

/**
 * The values `{{steps.N.status}}` can read, per step type. Extension: `failed` for an approval or a wait
 * step that could not run at all (an expression without a value, a recipient or URL refused); a gate that got no
 * answer in time reads `declined` (or `confirmed` with `on_timeout: approve`).
 */
export const STEP_OUTCOMES = Object.freeze({
  webhook: Object.freeze(['executed', 'failed', 'skipped'] as const),
  approval: Object.freeze(['confirmed', 'declined', 'skipped', 'failed'] as const),
  wait: Object.freeze(['executed', 'skipped', 'failed'] as const),
});
/** Outcomes that count as a failed step for error_handling. */
export const FAILURE_OUTCOMES = Object.freeze([
  'failed',
  'declined',
] as const satisfies readonly StepOutcome[]);
export type StepOutcomeOf<T extends StepType> = (typeof STEP_OUTCOMES)[T][number];
export type StepOutcome = StepOutcomeOf<StepType>;
export const ALL_STEP_OUTCOMES = Object.freeze([
  ...new Set(Object.values(STEP_OUTCOMES).flat()),
] as StepOutcome[]) as readonly StepOutcome[];

export const ERROR_HANDLING = Object.freeze(['fail_chain', 'skip_step'] as const);
export type ErrorHandling = (typeof ERROR_HANDLING)[number];

export const CHAIN_CALLBACK_EVENTS = Object.freeze([
  'chain.completed',
  'chain.failed',
  'chain.cancelled',
  'chain.step.completed',
] as const);
export type ChainCallbackEvent = (typeof CHAIN_CALLBACK_EVENTS)[number];

/** Chains and chain templates hold 2 to 20 steps. */
export const MIN_CHAIN_STEPS = 2;
export const MAX_CHAIN_STEPS = 20;

export const ChainStatus = z.enum(CHAIN_STATES).meta({ id: 'ChainStatus' });
export const ChainStepStatus = z.enum(STEP_STATUSES).meta({ id: 'ChainStepStatus' });
export const ChainStepType = z.enum(STEP_TYPES).meta({ id: 'ChainStepType' });
export const ChainStepOutcome = z.enum(ALL_STEP_OUTCOMES as [StepOutcome, ...StepOutcome[]]).meta({
  id: 'ChainStepOutcome',
  description:
    'webhook: executed, failed, skipped; approval: confirmed, declined, skipped; wait: executed, skipped.',
});
export const ChainErrorHandling = z.enum(ERROR_HANDLING).meta({ id: 'ChainErrorHandling' });

const stepCommon = {
  name: z.string().trim().min(1).max(255),
  condition: z.string().trim().min(1).max(1000).optional().meta({
    description:
      '`<left> <operator> <right>`, operators `==`, `!=`, `>`, `<`, `>=`, `<=`, `contains`, `not_contains`, `starts_with`, `ends_with`. False: the step is skipped.',
  }),
};

/** A step's delivery window: the step's action waits for it when the step starts (its timezone defaults to UTC). */
const StepWindow = DeliveryWindow.optional().meta({
  description:
    "When the step's action may fire; takes no `{{...}}`. The step starts when the one before it settles and its action waits for the next opening (timezone default UTC).",
});

/** URL, header values and body take `{{...}}` expressions, so the URL is checked when the step runs, not here. */
export const HttpCallStep = HttpRequestConfig.extend({
  ...stepCommon,
  type: z.enum(['http_call', 'webhook']),
  max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_CEILING).optional().meta({
    description: 'Default 5, capped by the plan like actions (Free 3, Pro 10, Business 20).',
  }),
  retry_strategy: RetryStrategy.optional(),
  webhook_secret: WebhookSecret.optional(),
  allowed_origins: AllowedOrigins.optional(),
  delivery_window: StepWindow,
}).meta({ id: 'ChainHttpCallStep' });

export const GatedStep = z
  .object({
    ...stepCommon,
    type: z.enum(['gated', 'approval']),
    gate: GateInput.meta({
      description: "As an approval action's gate; message and recipients take `{{...}}`.",
    }),
    delivery_window: StepWindow,
  })
  .meta({ id: 'ChainGatedStep' });

export const DelayStep = z
  .object({
    ...stepCommon,
    type: z.enum(['delay', 'wait']),
    delay: Duration.optional().meta({
      description: 'How long to wait; `SCHED_TIME_SCALE` does not shorten it.',
    }),
    wait: Duration.optional().meta({ description: 'Alias of `delay` (chain templates use it).' }),
  })
  .superRefine((step, ctx) => {
    if ((step.delay === undefined) === (step.wait === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['delay'], message: 'give exactly one of delay or wait' });
    }
  })
  .meta({ id: 'ChainDelayStep' });

export const ChainStepInput = z
  .discriminatedUnion('type', [HttpCallStep, GatedStep, DelayStep])
  .meta({ id: 'ChainStepInput' });
export type ChainStepInput = z.input<typeof ChainStepInput>;
export type ChainStepParsed = z.output<typeof ChainStepInput>;

/**
 * A stored step as views show it (template `chain_steps`): its `webhook_secret` is never shown, `signed` says
 * whether one is set; header values are `***` for keys without the write scope.
 */
export const ChainStepDefinitionView = z
  .discriminatedUnion('type', [
    HttpCallStep.omit({ webhook_secret: true })
      .extend({ signed: z.boolean() })
      .meta({ id: 'ChainHttpCallStepView' }),
    GatedStep,
    DelayStep,
  ])
  .meta({ id: 'ChainStepDefinitionView' });
export type ChainStepDefinitionView = z.output<typeof ChainStepDefinitionView>;

export const ChainSteps = z.array(ChainStepInput).min(MIN_CHAIN_STEPS).max(MAX_CHAIN_STEPS);

export const ChainCreateBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    steps: ChainSteps,
    input: z
      .record(z.string(), z.unknown())
      .refine((i) => jsonDepth(i) <= MAX_JSON_DEPTH, {
        message: `must nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      })
      .default({})
      .meta({
        description: 'Variables every step reads as `{{input.<field>}}`.',
      }),
    error_handling: ChainErrorHandling.default('fail_chain'),
    callback_url: z.string().min(1).max(2048).optional().meta({
      description: 'Receives chain.completed, chain.failed, chain.cancelled and chain.step.completed.',
    }),
    webhook_secret: WebhookSecret.optional().meta({
      description: "Signs the chain's callbacks (each http_call step has its own `webhook_secret`).",
    }),
  })
  .meta({
    id: 'ChainCreate',
    examples: [
      {
        name: 'Refund order 42',
        input: { order: 42 },
        steps: [
          {
            type: 'approval',
            name: 'approve refund',
            gate: {
              message: 'Refund order {{input.order}}?',
              recipients: ['ada@example.com'],
              timeout: '24h',
            },
          },
          {
            type: 'webhook',
            name: 'refund',
            url: 'https://hooks.example.com/refunds',
            method: 'POST',
            body: { order: '{{input.order}}' },
          },
        ],
      },
    ],
  });
export type ChainCreateBody = z.input<typeof ChainCreateBody>;
export type ChainCreateParsed = z.output<typeof ChainCreateBody>;

export const ChainStepView = z
  .object({
    index: z.number().int(),
    name: z.string(),
    type: ChainStepType,
    status: ChainStepStatus,
    outcome: ChainStepOutcome.nullable().meta({
      description: 'What `{{steps.N.status}}` reads; null until settled.',
    }),
    condition: z.string().nullable(),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the step failed, e.g. an expression without a value.' }),
    started_at: NullableTimestamp,
    completed_at: NullableTimestamp,
    action_id: Uuid.nullable().meta({
      description:
        'The internal action running an HTTP or gate step (readable with GET /actions/{id}); null for a wait or a step not started.',
    }),
  })
  .meta({ id: 'ChainStep' });
export type ChainStepView = z.infer<typeof ChainStepView>;

export const StepContext = z
  .object({
    status: ChainStepOutcome,
    response: z.unknown().meta({
      description:
        'The parsed JSON response body; a string when the body is not JSON; null when empty or none.',
    }),
  })
  .meta({ id: 'ChainStepContext' });

export const ChainContext = z
  .object({
    steps: z.record(z.string(), StepContext).meta({ description: 'Keyed by step index, for settled steps.' }),
  })
  .meta({ id: 'ChainContext' });
export type ChainContext = z.infer<typeof ChainContext>;

export const Chain = z
  .object({
    id: Uuid,
    name: z.string(),
    status: ChainStatus,
    current_step: z.number().int().meta({ description: 'Zero-based index of the step running or last run.' }),
    steps: z.array(ChainStepView),
    context: ChainContext,
    input: z.record(z.string(), z.unknown()),
    error_handling: ChainErrorHandling,
    callback_url: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: NullableTimestamp.meta({
      description: 'When the chain completed, failed or was cancelled.',
    }),
  })
  .meta({ id: 'Chain' });
export type Chain = z.infer<typeof Chain>;

export const ChainSummary = z
  .object({
    id: Uuid,
    name: z.string(),
    status: ChainStatus,
    current_step: z.number().int(),
    created_at: Timestamp,
  })
  .meta({ id: 'ChainSummary' });
export type ChainSummary = z.infer<typeof ChainSummary>;

export const ChainListQuery = z.object({
  status: ChainStatus.optional(),
  ...paginationQuery(20),
});

export const CancelledChain = z
  .object({ id: Uuid, status: z.literal('cancelled') })
  .meta({ id: 'CancelledChain' });

/** A step as callbacks report it. */
export const ChainStepResult = z
  .object({
    index: z.number().int(),
    name: z.string(),
    type: ChainStepType,
    status: ChainStepStatus,
    outcome: ChainStepOutcome.nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'ChainStepResult' });

const chainEnvelope = <E extends ChainCallbackEvent, P extends z.ZodType>(event: E, payload: P) =>
  z.object({
    id: Uuid.meta({ description: 'This event, the same on every retry of it (also sent as webhook-id).' }),
    event: z.literal(event),
    chain_id: Uuid,
    chain_name: z.string(),
    timestamp: Timestamp,
    payload,
  });

/** Callbacks to a chain's callback_url, signed and retried like action callbacks. */
export const ChainCallback = z
  .discriminatedUnion('event', [
    chainEnvelope(
      'chain.step.completed',
      z.object({
        chain_status: ChainStatus,
        step: ChainStepResult,
        response: z.unknown().meta({ description: 'As `context.steps.N.response`.' }),
      }),
    ),
    chainEnvelope(
      'chain.completed',
      z.object({ status: z.literal('completed'), steps: z.array(ChainStepResult) }),
    ),
    chainEnvelope(
      'chain.failed',
      z.object({
        status: z.literal('failed'),
        failed_step: ChainStepResult,
        steps: z.array(ChainStepResult),
      }),
    ),
    chainEnvelope(
      'chain.cancelled',
      z.object({
        status: z.literal('cancelled'),
        current_step: z.number().int(),
        steps: z.array(ChainStepResult),
      }),
    ),
  ])
  .meta({
    id: 'ChainCallback',
    description:
      '`chain.step.completed` fires when a step settles with any outcome (skipped and failed included); then one of the three chain events when the chain ends.',
  });
export type ChainCallback = z.infer<typeof ChainCallback>;
