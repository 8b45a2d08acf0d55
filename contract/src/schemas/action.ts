import { z } from 'zod';
import { GateInput, GateView, Recipient, ReminderEvent } from './approval.js';
import {
  ACTION_MODES,
  ACTION_STATES,
  BULK_ITEM_OUTCOMES,
  BULK_OPERATIONS,
  DELIVERY_OUTCOMES,
  ERROR_CLASSES,
  HOLD_REASONS,
  DST_FOLD_POLICIES,
  DST_GAP_POLICIES,
  HTTP_METHODS,
  LEGACY_ACTION_MODES,
  LEGACY_ACTION_STATES,
  MISSED_POLICIES,
  NOT_MET_POLICIES,
  ON_CREATE_RULES,
  ON_EXECUTE_CONDITIONS,
  PLANS,
  RECURRENCE_END_TYPES,
  RECURRENCE_UNITS,
  RETRY_STRATEGIES,
  SCHEDULE_PRESETS,
} from '../vocabulary.js';
import {
  Duration,
  exactTotalLimit,
  NullableTimestamp,
  paginationQuery,
  ReadConsistencyFields,
  Timestamp,
  Uuid,
} from './common.js';
import { whsecSecretProblem } from '../signatures.js';
import { DeliveryWindow, WindowDeferral } from './window.js';

/** The action states `pending_resolution` is the former name of `scheduled` (filters accept it). */
/**
 * The widest `max_attempts` any server accepts; each plan caps it lower (Business 20 by default, up to this in a
 * self-hosted server's SCHED_PLANS_FILE).
 */
export const MAX_ATTEMPTS_CEILING = 100;

export const ActionStatus = z.enum(ACTION_STATES).meta({ id: 'ActionStatus' });
export const ActionMode = z.enum(ACTION_MODES).meta({ id: 'ActionMode' });
export type ActionMode = z.infer<typeof ActionMode>;
/** Input accepts the legacy names (`immediate` = webhook, `gated` = approval); answers use current names. */
const ModeInput = z.enum([
  ...ACTION_MODES,
  ...(Object.keys(LEGACY_ACTION_MODES) as (keyof typeof LEGACY_ACTION_MODES)[]),
]);
export const RetryStrategy = z.enum(RETRY_STRATEGIES).meta({ id: 'RetryStrategy' });
export type RetryStrategy = z.infer<typeof RetryStrategy>;
export const HttpMethod = z.enum(HTTP_METHODS).meta({ id: 'HttpMethod' });
export type HttpMethod = z.infer<typeof HttpMethod>;

export const Schedule = z
  .object({
    preset: z.enum(SCHEDULE_PRESETS).optional(),
    wait: Duration.optional(),
    timezone: z
      .string()
      .max(64)
      .optional()
      .meta({ description: 'IANA timezone for presets; overrides the top-level timezone.' }),
  })
  .meta({
    id: 'Schedule',
    description:
      'Exactly one of `preset`, `wait` or the top-level `scheduled_for` must be given. Calendar presets keep the current wall-clock time in the timezone.',
  });

const LegacyIntent = z
  .object({
    delay: Duration.optional(),
    preset: z.enum(SCHEDULE_PRESETS).optional(),
    timezone: z.string().max(64).optional(),
  })
  .meta({ deprecated: true, description: 'Deprecated: use `schedule` (`intent.delay` is `schedule.wait`).' });

/** Bounds that keep a stored request cheap to validate, store and sign (docs/security.md). */
export const MAX_REQUEST_HEADERS = 50;
export const MAX_JSON_DEPTH = 32;
/** An ISO 8601 instant with an offset or a zone fits in far fewer characters; longer text is not a time. */
const TimestampInput = z.string().max(64);

/** Depth of nested arrays and objects, counted without recursion (a deep body must not overflow the stack). */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * `https://host[:port]` in canonical form (lower case, default port dropped), or null when `text` is not exactly
 * an http(s) origin: a path, query, fragment or userinfo is refused so that an allowlist says what it means.
 */
export function canonicalOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/?#]*[/?#]./i.test(text) || /[?#]$/.test(text)) return null;
  return url.origin;
}

/**
 * The origins a URL whose scheme or host holds an expression may resolve to (a value never moves the request elsewhere); checked when the request is
 * made. Without it such a URL is refused at save time.
 */
export const AllowedOrigins = z
  .array(
    z
      .string()
      .max(2048)
      .refine((o) => canonicalOrigin(o) !== null, {
        message: 'must be an origin such as https://api.example.com (scheme, host and optional port only)',
      })
      .meta({ examples: ['https://hooks.example.com'] }),
  )
  .max(20)
  .meta({
    id: 'AllowedOrigins',
    description:
      'Origins (`https://host[:port]`) the request URL may resolve to when its scheme or host holds an expression; required for such URLs.',
  });

export const HttpRequestConfig = z
  .object({
    url: z.string().min(1).max(2048),
    method: HttpMethod.default('POST'),
    headers: z
      .record(z.string().min(1).max(256), z.string().max(8192))
      .refine((h) => Object.keys(h).length <= MAX_REQUEST_HEADERS, {
        message: `at most ${MAX_REQUEST_HEADERS} headers`,
      })
      .default({}),
    body: z
      .unknown()
      .optional()
      .refine((b) => jsonDepth(b) <= MAX_JSON_DEPTH, {
        message: `must nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      })
      .meta({ description: 'JSON body, sent as application/json.' }),
  })
  .meta({ id: 'HttpRequest' });

export const Coordination = z
  .object({
    on_create: z
      .enum(ON_CREATE_RULES)
      .optional()
      .meta({ description: '`cancel_and_replace` is an alias of `replace_existing`.' }),
    on_execute: z
      .object({
        condition: z.enum(ON_EXECUTE_CONDITIONS),
        on_condition_not_met: z.enum(NOT_MET_POLICIES).optional(),
        reschedule_delay: z.number().int().min(60).max(86400).default(300),
        max_reschedules: z.number().int().min(1).max(100).default(10),
      })
      .optional(),
  })
  .meta({ id: 'Coordination' });

export const Recurrence = z
  .object({
    // Far beyond any useful series, and small enough that the next occurrence is always a valid date.
    frequency: z.number().int().min(1).max(100_000),
    unit: z.enum(RECURRENCE_UNITS),
    end_type: z.enum(RECURRENCE_END_TYPES),
    max_occurrences: z.number().int().min(2).optional(),
    end_date: TimestampInput.optional(),
  })
  .meta({ id: 'Recurrence', description: 'Minimum interval 5 minutes. `M` is months.' });

export const DstPolicy = z
  .object({
    gap: z.enum(DST_GAP_POLICIES).default('same_offset').meta({
      description:
        'A wall time that does not exist (spring forward): `same_offset` reads it with the offset of before the gap, so it moves on by the gap (02:30 -> 03:30; the default, as before), `shift_forward` runs at the first instant after the gap (03:00), `skip` leaves that occurrence out.',
    }),
    fold: z.enum(DST_FOLD_POLICIES).default('first').meta({
      description:
        'A wall time that happens twice (fall back): `first` (the default, as before) or `second` instant, or `both`.',
    }),
  })
  .meta({
    id: 'DstPolicy',
    description:
      'How a recurring schedule reads wall times in DST gaps and folds (docs/actions.md). Applies to the occurrences of a `d`, `w` or `M` recurrence; `m` and `h` are elapsed time and meet no gap or fold.',
  });

export type DstPolicy = z.input<typeof DstPolicy>;

export const DedupKeys = z
  .array(z.string())
  .meta({ description: 'Up to 10 keys of letters, digits, `_`, `:`, `.`, `-`.' });

/** Printable ASCII: both signature schemes key HMAC with the secret's bytes, and receivers' libraries agree on ASCII. */
export const WebhookSecret = z
  .string()
  .min(16)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  // L6: a short or non-base64 whsec_ value would key the Standard Webhooks HMAC with a guessable key.
  .superRefine((secret, ctx) => {
    const problem = whsecSecretProblem(secret);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'Signs every request sent for the action (docs/signatures.md). A `whsec_` secret must be base64 of at least 24 bytes.',
  });

export const ActionCreateBody = z
  .object({
    mode: ModeInput.optional(),
    type: ModeInput.optional().meta({ deprecated: true, description: 'Deprecated alias of `mode`.' }),
    name: z.string().trim().min(1).max(255).optional(),
    description: z.string().max(1000).optional(),
    timezone: z.string().max(64).optional(),
    idempotency_key: z.string().min(1).max(255).optional(),
    callback_url: z.string().min(1).max(2048).optional(),
    schedule: Schedule.optional(),
    intent: LegacyIntent.optional(),
    scheduled_for: TimestampInput.optional().meta({
      description:
        'Exact ISO 8601 time; without an offset it is UTC (`timezone` governs presets and recurrence only).',
    }),
    execute_at: TimestampInput.optional().meta({
      deprecated: true,
      description: 'Deprecated alias of `scheduled_for`.',
    }),
    execute_at_utc: TimestampInput.optional().meta({
      deprecated: true,
      description: 'Deprecated alias of `scheduled_for`.',
    }),
    request: HttpRequestConfig.optional().meta({
      description:
        'Webhook mode: the request to deliver. Approval mode: optional request run after approval.',
    }),
    gate: GateInput.optional().meta({ description: 'Approval mode: who is asked, how, and until when.' }),
    max_attempts: z.number().int().min(1).max(MAX_ATTEMPTS_CEILING).optional().meta({
      description:
        'Default 5, capped by the plan: Free 3, Pro 10, Business 20 (a self-hosted server may raise the caps, docs/self-hosting.md).',
    }),
    retry_strategy: RetryStrategy.optional(),
    webhook_secret: WebhookSecret.optional(),
    dedup_keys: DedupKeys.optional(),
    coordination_keys: DedupKeys.optional().meta({
      deprecated: true,
      description: 'Deprecated alias of `dedup_keys`.',
    }),
    coordination: Coordination.optional(),
    recurrence: Recurrence.optional(),
    repeat: Recurrence.optional().meta({ description: 'Alias of `recurrence`.' }),
    dst_policy: DstPolicy.optional(),
    delivery_window: DeliveryWindow.optional(),
  })
  .meta({
    id: 'ActionCreate',
    examples: [
      {
        name: 'Order 42 follow-up',
        schedule: { wait: '10m' },
        request: {
          url: 'https://hooks.example.com/orders/42/follow-up',
          method: 'POST',
          body: { order: 42 },
        },
        callback_url: 'https://hooks.example.com/sched-events',
        idempotency_key: 'order-42-follow-up',
      },
    ],
  });
export type ActionCreateBody = z.input<typeof ActionCreateBody>;
export type ActionCreateParsed = z.output<typeof ActionCreateBody>;

export const AttemptErrorClass = z.enum(ERROR_CLASSES).meta({
  id: 'ErrorClass',
  description:
    '`http` a non-2xx answer, `timeout` no answer in time, `dns` the name did not resolve, `connect` refused or reset, `tls` the TLS handshake failed, `blocked` refused by the destination policy.',
});

/** The latest delivery attempt of an action, as lists show it. */
export const LastAttempt = z
  .object({
    at: Timestamp.meta({ description: 'When the attempt started.' }),
    status_code: z.number().int().nullable(),
    error_class: AttemptErrorClass.nullable(),
    lateness_ms: z.number().int(),
  })
  .meta({ id: 'LastAttempt' });

export const DeliveryAttempt = z
  .object({
    id: Uuid,
    attempt_number: z.number().int(),
    due_at: Timestamp.meta({ description: 'When the attempt was due.' }),
    started_at: Timestamp,
    lateness_ms: z
      .number()
      .int()
      .meta({ description: 'started_at minus due_at: how punctual the attempt was.' }),
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable(),
    outcome: z.enum(DELIVERY_OUTCOMES),
    error_class: AttemptErrorClass.nullable().meta({
      description: 'Why the attempt did not succeed; null for a success.',
    }),
    held_ms: z.number().int().nullable().meta({
      description:
        'How long the due attempt waited before it started because of its destination (`held_by`); null when it did not wait. Part of `lateness_ms`, which is measured from the due time.',
    }),
    held_by: z.enum(HOLD_REASONS).nullable().meta({
      description: 'What held it: `flow_control`, `circuit` or `paused` (the first that did).',
    }),
    error: z.string().nullable(),
    response_excerpt: z
      .string()
      .nullable()
      .meta({ description: 'At most the first 2 KiB of the response body.' }),
    response_truncated: z.boolean(),
  })
  .meta({ id: 'DeliveryAttempt' });

/**
 * How many of its newest attempts an action's view embeds: a long-lived series keeps its view small, and
 * `GET /v1/actions/{id}/attempts` pages through all of them.
 */
export const ACTION_VIEW_ATTEMPTS = 20;

/** Keyset of the attempt pages: opaque to clients (the start time in ms and the id of the oldest attempt shown). */
export const AttemptCursor = z
  .string()
  .regex(/^\d{1,15}_[0-9a-f-]{36}$/, 'must be a `meta.next_before` of an earlier page')
  .meta({ id: 'AttemptCursor', examples: ['1764151200000_0b6f3c2e-8d4a-4f1e-9c7b-2a5d6e8f1a3b'] });

export const AttemptsQuery = z.object({
  before: AttemptCursor.optional().meta({
    description:
      "Attempts older than this cursor (an earlier page's `meta.next_before`); the newest without it.",
  }),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  ...ReadConsistencyFields,
});

/** What a held `GET /v1/actions/{id}/wait` waits for. */
export const WAIT_FOR = Object.freeze({ decision: 'decision', terminal: 'terminal' } as const);

export const ActionWaitQuery = z
  .object({
    for: z.enum(WAIT_FOR).default('decision').meta({
      description:
        "`decision`: until an approval's gate is decided (a webhook: until it ended); `terminal`: until the action ended.",
    }),
    timeout: z.coerce
      .number()
      .int()
      .min(1)
      .max(60)
      .default(30)
      .meta({ description: 'Seconds to hold, 1-60.' }),
  })
  .meta({ id: 'ActionWaitQuery' });

export const DeliveryAttemptsPage = z
  .object({
    data: z.array(DeliveryAttempt).meta({ description: 'Newest first.' }),
    meta: z.object({
      next_before: AttemptCursor.nullable().meta({
        description: 'Pass as `before` for the next (older) page; null on the last page.',
      }),
      limit: z.number().int(),
    }),
  })
  .meta({ id: 'DeliveryAttemptsPage' });

export const ActionRequestView = z
  .object({
    url: z.string(),
    method: HttpMethod,
    headers: z.record(z.string(), z.string()),
    body: z.unknown().optional(),
  })
  .meta({ id: 'ActionRequest' });

/** One bulk operation's visit to an action (the action's timeline). */
export const ActionBulkEvent = z
  .object({
    bulk_operation_id: Uuid,
    operation: z.enum(BULK_OPERATIONS),
    outcome: z.enum(BULK_ITEM_OUTCOMES),
    detail: z.string().nullable().meta({
      description: 'Why the action was skipped or failed, or the id of the action a replay made.',
    }),
    note: z.string().nullable(),
    at: Timestamp,
  })
  .meta({ id: 'ActionBulkEvent' });
export const PauseView = z
  .object({
    paused_at: Timestamp,
    until: NullableTimestamp.meta({
      description: 'When it resumes by itself; null for an indefinite pause.',
    }),
    note: z.string().nullable(),
  })
  .meta({ id: 'Pause' });

export const Action = z
  .object({
    id: Uuid,
    name: z.string(),
    description: z.string().nullable(),
    mode: ActionMode,
    status: ActionStatus,
    timezone: z.string(),
    scheduled_for: Timestamp,
    next_attempt_at: NullableTimestamp.meta({
      description: 'When the next delivery attempt is due (retries included).',
    }),
    executed_at: NullableTimestamp,
    idempotency_key: z.string().nullable(),
    dedup_keys: z.array(z.string()),
    attempt_count: z.number().int(),
    max_attempts: z.number().int(),
    retry_strategy: RetryStrategy,
    manual_retry_count: z.number().int(),
    is_recurring: z.boolean(),
    recurrence: Recurrence.nullable(),
    recurrence_count: z.number().int(),
    dst_policy: DstPolicy.nullable().meta({
      description: 'The DST policy of a recurring action (null: one-time).',
    }),
    next_occurrences: z.array(Timestamp).meta({
      description:
        'A recurring action: the next (up to) 5 runs, the pending one first, within the end of the series. Empty otherwise.',
    }),
    pause: PauseView.nullable().meta({
      description: 'The running pause of a `paused` action; null otherwise.',
    }),
    delivery_window: DeliveryWindow.nullable(),
    deferred_by_window: WindowDeferral.nullable().meta({
      description:
        'Why the next attempt is later than it was due: the window was closed at `from` and opens at `to`. null when the window did not move it.',
    }),
    skipped_by_window: z.array(Timestamp).meta({
      description:
        'The occurrences of a recurring action its window skipped (`outside: skip`), the newest 20, oldest first.',
    }),
    last_executed_at: NullableTimestamp,
    request: ActionRequestView.nullable(),
    callback_url: z.string().nullable(),
    signed: z.boolean().meta({
      description: 'Whether outgoing requests are signed (a webhook_secret is set; it is never shown).',
    }),
    coordination: Coordination.nullable(),
    gate: GateView.nullable(),
    delivery_attempts: z.array(DeliveryAttempt).meta({
      description: `The newest ${ACTION_VIEW_ATTEMPTS} delivery attempts, oldest of them first.`,
    }),
    delivery_attempts_more: z.boolean().meta({
      description:
        'Whether older attempts exist than those in `delivery_attempts`: `GET /v1/actions/{id}/attempts` pages through all of them.',
    }),
    reminder_events: z.array(ReminderEvent),
    recipients: z.array(Recipient),
    last_error: z.string().nullable(),
    last_attempt: LastAttempt.nullable(),
    replay_of: Uuid.nullable().meta({
      description: 'The action this one replays (POST /actions/{id}/replay).',
    }),
    replays: z.array(Uuid).meta({ description: 'The actions replaying this one, oldest first.' }),
    bulk_operations: z.array(ActionBulkEvent).meta({
      description:
        "The bulk operations that processed this action, in order: the operation's part of its timeline.",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Action' });
export type Action = z.infer<typeof Action>;

export const ActionSummary = z
  .object({
    id: Uuid,
    name: z.string(),
    mode: ActionMode,
    status: ActionStatus,
    scheduled_for: Timestamp,
    idempotency_key: z.string().nullable(),
    dedup_keys: z.array(z.string()),
    destination_host: z.string().nullable().meta({ description: "The request URL's host, lower-cased." }),
    last_attempt: LastAttempt.nullable(),
    replay_of: Uuid.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ActionSummary' });
export type ActionSummary = z.infer<typeof ActionSummary>;

/** A time bound of a list filter: ISO 8601 with an offset (`2026-11-25T10:00:00Z`). */
export const TimeBound = z
  .string()
  .max(64)
  .refine((v) => /\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), {
    message: 'must be an ISO 8601 time, e.g. 2026-11-25T10:00:00Z',
  })
  .meta({ format: 'date-time' });

/** `last_status_code`: an integer status, or a class `4xx` / `5xx` (any of `1xx`..`5xx`). */
export const StatusCodeMatch = z
  .union([
    z.number().int().min(100).max(599),
    z
      .string()
      .regex(/^([1-5][0-9]{2}|[1-5][xX]{2})$/, 'must be a status code (e.g. 503) or a class (4xx, 5xx)'),
  ])
  .meta({ description: 'A status code (`503`) or a class (`4xx`, `5xx`).' });

/**
 * The filters of `GET /actions`, shared with bulk operations' `filter` (one declaration, so the two match the same
 * actions). Time bounds: `_after` is inclusive, `_before` exclusive.
 */
export const ActionFilterFields = {
  status: z
    .enum([...ACTION_STATES, ...(Object.keys(LEGACY_ACTION_STATES) as (keyof typeof LEGACY_ACTION_STATES)[])])
    .optional()
    .meta({ description: '`pending_resolution` is the former name of `scheduled`.' }),
  mode: ModeInput.optional().meta({
    description: '`immediate` and `gated` are the legacy names of `webhook` and `approval`.',
  }),
  search: z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Case-insensitive match in name and description.' }),
  coordination_key: z.string().max(255).optional(),
  dedup_key: z.string().max(255).optional().meta({ description: 'Same as `coordination_key`.' }),
  recurring: z.enum(['recurring', 'one-time']).optional(),
  destination_host: z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Exact host of the request URL (case-insensitive), e.g. `api.example.com`.' }),
  destination_origin: z.string().max(300).optional().meta({
    description:
      'The origin of the request URL (scheme, host and port), e.g. `http://127.0.0.1:9000`; a bare host means its https origin on the default port.',
  }),
  last_status_code: StatusCodeMatch.optional(),
  error_class: AttemptErrorClass.optional().meta({ description: 'The error class of the latest attempt.' }),
  failed_after: TimeBound.optional().meta({
    description: 'Failed at or after this time (implies status failed).',
  }),
  failed_before: TimeBound.optional().meta({
    description: 'Failed before this time (implies status failed).',
  }),
  created_after: TimeBound.optional(),
  created_before: TimeBound.optional(),
  scheduled_after: TimeBound.optional(),
  scheduled_before: TimeBound.optional(),
};

export const ActionListQuery = z.object({
  ...ActionFilterFields,
  ...paginationQuery(25),
  ...ReadConsistencyFields,
});
export type ActionFilterInput = z.output<z.ZodObject<typeof ActionFilterFields>>;

/** `POST /actions/{id}/replay`: the parts of the original's definition to change; everything else is copied. */
export const ReplayBody = z
  .object({
    schedule: Schedule.optional(),
    scheduled_for: TimestampInput.optional().meta({
      description:
        'Exact ISO 8601 time; without an offset it is UTC (`timezone` governs presets and recurrence only).',
    }),
    timezone: z.string().max(64).optional(),
    request: z
      .object({
        headers: HttpRequestConfig.shape.headers.unwrap().optional().meta({
          description: "Replace the original request's headers.",
        }),
        body: HttpRequestConfig.shape.body,
      })
      .optional(),
  })
  .meta({
    id: 'ReplayOptions',
    description:
      'Without `schedule` or `scheduled_for` the replay is due at once. `request.headers` / `request.body` replace those of the original.',
  });
export type ReplayBody = z.output<typeof ReplayBody>;

/** `POST /actions/{id}/reschedule`: a new due time by the create's rules (one of `scheduled_for` and `schedule`). */
export const RescheduleBody = z
  .object({
    schedule: Schedule.optional(),
    scheduled_for: TimestampInput.optional().meta({
      description: "Exact ISO 8601 time; without an offset it is read in `timezone` (default the action's).",
    }),
    timezone: z.string().max(64).optional(),
  })
  .meta({
    id: 'RescheduleRequest',
    description:
      "Exactly one of `schedule` and `scheduled_for`, by the create's rules (plan horizon included); the action's delivery window applies to the new time.",
  });
export type RescheduleBody = z.input<typeof RescheduleBody>;

/** `POST /actions/{id}/run`. */
export const RunNowBody = z
  .object({
    ignore_window: z.boolean().default(false).meta({
      description:
        'true: fire now even when the delivery window is closed (default: the window is honoured).',
    }),
  })
  .meta({ id: 'RunNowRequest' });
export type RunNowBody = z.input<typeof RunNowBody>;

export const SkippedMeta = z
  .object({ skipped: z.literal(true), reason: z.string(), existing_status: ActionStatus.optional() })
  .meta({ id: 'SkippedMeta' });

/** The most items one `POST /v1/actions/batch` takes. */
export const ACTION_BATCH_MAX = 1000;

export const ActionBatchBody = z
  .object({
    actions: z
      .array(ActionCreateBody)
      .min(1)
      .max(ACTION_BATCH_MAX)
      .meta({
        description: `1 to ${ACTION_BATCH_MAX} create bodies, each as \`POST /v1/actions\` takes it.`,
      }),
  })
  .meta({ id: 'ActionBatchRequest' });
export type ActionBatchBody = z.input<typeof ActionBatchBody>;

export const ActionBatchResult = z
  .object({
    data: z.array(
      Action.extend({
        meta: SkippedMeta.optional().meta({
          description:
            'Present only on an item that was skipped: the single create answers it with 200 and this meta.',
        }),
      }).meta({ id: 'ActionBatchItem' }),
    ),
    meta: z.object({ created: z.number().int(), skipped: z.number().int() }),
  })
  .meta({ id: 'ActionBatchResult' });
export type ActionBatchResult = z.infer<typeof ActionBatchResult>;

export const CancelledAction = z
  .object({ id: Uuid, name: z.string(), status: z.literal('cancelled') })
  .meta({ id: 'CancelledAction' });

export const RetriedAction = z
  .object({
    id: Uuid,
    name: z.string(),
    status: z.literal('resolved'),
    attempt_count: z.literal(0),
    manual_retry_count: z.number().int(),
  })
  .meta({ id: 'RetriedAction' });

export const PauseBody = z
  .object({
    until: TimestampInput.optional().meta({
      description:
        "ISO 8601; resumes by itself then (without an offset it is read in the action's timezone).",
    }),
    duration: Duration.optional().meta({ description: 'Resumes by itself after this long (e.g. 2h).' }),
    indefinite: z.boolean().optional().meta({ description: 'true: stays paused until resumed.' }),
    note: z.string().max(1000).optional().meta({ description: 'Kept in the timeline with the pause.' }),
  })
  .meta({
    id: 'PauseRequest',
    description: 'Exactly one of `until`, `duration` or `indefinite: true` (at most 365 days ahead).',
  });
export type PauseBody = z.infer<typeof PauseBody>;

export const ResumeBody = z
  .object({
    missed: z.enum(MISSED_POLICIES).default('run_once').meta({
      description:
        "What passed while paused: `run_once` (default) runs a one-time action now, and a series' missed occurrence once before it carries on; `skip` drops it: a series moves to its next occurrence, a one-time action ends `expired`, a snoozed approval skips its reminder.",
    }),
  })
  .meta({ id: 'ResumeRequest' });
export type ResumeBody = z.input<typeof ResumeBody>;

export const CancelByKeyResult = z
  .object({
    message: z.string(),
    cancelled: z.number().int(),
    skipped: z.number().int(),
    coordination_key: z.string(),
  })
  .meta({ id: 'CancelByKeyResult' });

export const Quota = z
  .object({
    period: z.object({ year: z.number().int(), month: z.number().int(), month_name: z.string() }),
    actions: z.object({ used: z.number().int(), limit: z.number().int().nullable() }),
    sms: z.object({ used: z.number().int(), limit: z.number().int() }),
    emails: z.object({ used: z.number().int(), limit: z.number().int() }),
    chat_messages: z.object({ used: z.number().int(), limit: z.number().int() }),
    team_members: z.object({ used: z.number().int(), limit: z.number().int() }),
    ai_suggestions: z.object({ used: z.number().int(), limit: z.number().int(), percentage: z.number() }),
    plan: z.enum(PLANS),
    /** The plan's fixed limits (not counted per month). */
    limits: z.object({
      max_attempts: z.number().int(),
      schedule_horizon_days: z.number().int(),
      retention_days: z.number().int(),
      max_recipients: z.number().int(),
      templates: z.number().int(),
      chains: z.boolean(),
      slack_teams: z.boolean(),
    }),
    resets_at: Timestamp,
  })
  .meta({
    id: 'Quota',
    description:
      '`limit: null` means unlimited. Monthly counts reset on the 1st at 00:00 UTC; `team_members` counts the members the account has; `limits` are the fixed limits of the plan (docs/api.md).',
  });
export type Quota = z.infer<typeof Quota>;

const LatencyFigures = {
  attempts: z.number().int(),
  succeeded: z.number().int(),
  lateness_p50_ms: z.number().int().nullable(),
  lateness_p99_ms: z.number().int().nullable(),
};

export const ActionStats = z
  .object({
    actions_by_status: z.record(ActionStatus, z.number().int()).meta({
      description: `How many of the account's actions are in each state (every state present, 0 included), counted as \`GET /v1/actions?status=\` counts its \`total\`: a chain's step actions are not listed, and past ${exactTotalLimit} a count is PostgreSQL's estimate (\`estimated_statuses\`).`,
    }),
    estimated_statuses: z
      .array(ActionStatus)
      .optional()
      .meta({
        description: `Present only when some count in \`actions_by_status\` is an estimate: the states whose actions number more than ${exactTotalLimit} (for \`scheduled\` and \`resolved\`, more than ${exactTotalLimit} actions of the pending phase together; \`executing\` is counted like a state of its own).`,
      }),
    approvals_waiting: z.number().int().meta({
      description:
        "Approvals waiting for an answer (`awaiting_response`), chains' gate steps included: the `total` of `GET /v1/approvals`.",
    }),
    approvals_waiting_exact: z
      .boolean()
      .optional()
      .meta({
        description: `Present, and false, only when \`approvals_waiting\` is an estimate (more than ${exactTotalLimit}).`,
      }),
    failing_destinations: z
      .array(
        z.object({
          origin: z.string().meta({
            description:
              "The request URL's origin (scheme, host and port), the destination as `/v1/destinations/{origin}` names it.",
          }),
          host: z
            .string()
            .meta({ description: "The request URL's host, lower-cased (as `destination_host`)." }),
          attempts: z.number().int(),
          failed: z
            .number()
            .int()
            .meta({ description: 'Attempts that did not succeed (retryable or permanent).' }),
          last_failed_at: Timestamp,
        }),
      )
      .meta({
        description:
          'The destinations (origins) with failed delivery attempts in the last 24 hours, most failures first (at most 5).',
      }),
    deliveries: z
      .object({
        since: Timestamp,
        until: Timestamp,
        ...LatencyFigures,
        success_rate: z
          .number()
          .nullable()
          .meta({ description: 'succeeded / attempts, 0 to 1; null without attempts.' }),
        hours: z
          .array(z.object({ start: Timestamp, ...LatencyFigures }))
          .meta({ description: 'The same figures per hour, oldest first, 24 entries.' }),
      })
      .meta({
        description:
          'Delivery attempts started in the last 24 hours: how many succeeded, and their lateness (started_at minus due_at).',
      }),
  })
  .meta({ id: 'ActionStats' });
export type ActionStats = z.infer<typeof ActionStats>;
