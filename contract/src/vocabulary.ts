/**
 * The vocabulary of sched, each list declared once: the contract's schemas, the server's domain rules, its SQL
 * (interpolated from these constants, as pg-boss's plans.ts does with its job states), the SDK and the CLI all use
 * these. Glossary:
 * - action state: where an action is in its life; the transitions are in server/src/domain/action/states.ts.
 * - schedule preset: a named time ("tomorrow", "1h") resolved in the action's timezone.
 * - recurrence unit / end type: how a recurring action repeats (`M` is months) and when it stops.
 * - on_create rule / on_execute condition / not-met policy: coordination between actions sharing a dedup key.
 * - delivery outcome: how one HTTP attempt ended; retry strategy: how long to wait before the next one.
 * - plan: an account's quotas and limits.
 */

export const ACTION_STATES = Object.freeze([
  'scheduled',
  'resolved',
  'executing',
  'awaiting_response',
  'paused',
  'executed',
  'failed',
  'expired',
  'cancelled',
] as const);
export type ActionState = (typeof ACTION_STATES)[number];

/** How a gate ended, as an agent reads it (the MCP tools, the SDK's agent helpers): null while nobody has decided. */
export type AgentDecision = 'confirmed' | 'declined' | 'expired' | 'cancelled';

/** An approval's decision from its state: executed is a confirm, failed a decline, or how it timed out. */
export function decisionOfState(status: ActionState): AgentDecision | null {
  switch (status) {
    case 'executed':
      return 'confirmed';
    case 'failed':
      return 'declined';
    case 'expired':
      return 'expired';
    case 'cancelled':
      return 'cancelled';
    default:
      return null;
  }
}

/** What `POST /actions/{id}/resume` does with a moment (or occurrences) that passed while the action was paused. */
export const MISSED_POLICIES = Object.freeze(['run_once', 'skip'] as const);
export type MissedPolicy = (typeof MISSED_POLICIES)[number];
/** DST policy of a schedule: what a wall time in a gap (spring forward) or a fold (fall back) becomes. */
export const DST_GAP_POLICIES = Object.freeze(['shift_forward', 'skip', 'same_offset'] as const);
export type DstGapPolicy = (typeof DST_GAP_POLICIES)[number];
export const DST_FOLD_POLICIES = Object.freeze(['first', 'second', 'both'] as const);
export type DstFoldPolicy = (typeof DST_FOLD_POLICIES)[number];
/** How DST touched one occurrence of a preview (null when it did not). */
export const DST_EFFECTS = Object.freeze([
  'gap_shifted',
  'gap_skipped',
  'fold_first',
  'fold_second',
] as const);
export type DstEffect = (typeof DST_EFFECTS)[number];
/** Former names of states that filters still accept. */
export const LEGACY_ACTION_STATES = Object.freeze({ pending_resolution: 'scheduled' } as const);

export const ACTION_MODES = Object.freeze(['webhook', 'approval'] as const);
/** The legacy names of modes, accepted on input. */
export const LEGACY_ACTION_MODES = Object.freeze({ immediate: 'webhook', gated: 'approval' } as const);

export const CALENDAR_PRESETS = Object.freeze([
  'tomorrow',
  'next_week',
  'next_monday',
  'next_tuesday',
  'next_wednesday',
  'next_thursday',
  'next_friday',
  'next_saturday',
  'next_sunday',
] as const);
export const OFFSET_PRESETS = Object.freeze(['1h', '2h', '4h', '1d', '3d', '1w'] as const);
export const SCHEDULE_PRESETS = Object.freeze([...CALENDAR_PRESETS, ...OFFSET_PRESETS] as const);
export type SchedulePreset = (typeof SCHEDULE_PRESETS)[number];

export const RECURRENCE_UNITS = Object.freeze(['m', 'h', 'd', 'w', 'M'] as const);
export type RecurrenceUnit = (typeof RECURRENCE_UNITS)[number];
export const RECURRENCE_END_TYPES = Object.freeze(['never', 'count', 'date'] as const);
export type RecurrenceEndType = (typeof RECURRENCE_END_TYPES)[number];

/** `cancel_and_replace` is an alias of `replace_existing`. */
export const ON_CREATE_RULES = Object.freeze([
  'skip_if_exists',
  'replace_existing',
  'cancel_and_replace',
] as const);
export type OnCreateRule = (typeof ON_CREATE_RULES)[number];
export const ON_EXECUTE_CONDITIONS = Object.freeze([
  'skip_if_previous_pending',
  'execute_if_previous_failed',
  'execute_if_previous_succeeded',
  'wait_for_previous',
] as const);
export type OnExecuteCondition = (typeof ON_EXECUTE_CONDITIONS)[number];
export const NOT_MET_POLICIES = Object.freeze(['cancel', 'reschedule', 'fail'] as const);
export type NotMetPolicy = (typeof NOT_MET_POLICIES)[number];

export const DELIVERY_OUTCOMES = Object.freeze(['success', 'retryable', 'permanent'] as const);
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];
export const RETRY_STRATEGIES = Object.freeze(['exponential', 'linear'] as const);
export const HTTP_METHODS = Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const);

export const PLANS = Object.freeze(['free', 'pro', 'business'] as const);
export type Plan = (typeof PLANS)[number];

/**
 * Why a delivery attempt did not succeed: `http` a non-2xx answer, `timeout` no answer in time, `dns` the
 * name did not resolve, `connect` the connection was refused or reset, `tls` the TLS handshake failed, `blocked` the
 * destination policy (SSRF guard) refused it. A successful attempt has none.
 */
export const ERROR_CLASSES = Object.freeze(['timeout', 'dns', 'connect', 'tls', 'http', 'blocked'] as const);
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Why a due delivery waited before its attempt started: its host's flow control, circuit or pause. */
export const HOLD_REASONS = Object.freeze(['flow_control', 'circuit', 'paused'] as const);
export type HoldReason = (typeof HOLD_REASONS)[number];

/** The days of the week a delivery window or quiet hours apply on. */
export const WEEKDAYS = Object.freeze(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const);
export type Weekday = (typeof WEEKDAYS)[number];
/** What happens to a due time outside a delivery window: moved to the next opening, or (a recurrence) skipped. */
export const WINDOW_OUTSIDE_POLICIES = Object.freeze(['defer', 'skip'] as const);
export type WindowOutsidePolicy = (typeof WINDOW_OUTSIDE_POLICIES)[number];

/** What a bulk operation does to each action it matched. */
export const BULK_OPERATIONS = Object.freeze([
  'cancel',
  'retry',
  'replay',
  'pause',
  'resume',
  'reschedule',
  'run',
] as const);
export type BulkOperationKind = (typeof BULK_OPERATIONS)[number];
/** A bulk operation runs until every matched action is processed (`completed`) or someone stops it (`stopped`). */
export const BULK_OPERATION_STATES = Object.freeze(['running', 'completed', 'stopped'] as const);
export type BulkOperationState = (typeof BULK_OPERATION_STATES)[number];
/** What a bulk operation did to one action. */
export const BULK_ITEM_OUTCOMES = Object.freeze(['affected', 'skipped', 'failed'] as const);
export type BulkItemOutcome = (typeof BULK_ITEM_OUTCOMES)[number];

/**
 * The machine-readable `code` of every error answer, with the status it comes with. Codes are stable: clients branch
 * on them; `message` is for people and may be reworded. A new code may be added in a minor release, so clients
 * should treat an unknown code by its status.
 */
export const ERROR_CODES = Object.freeze({
  malformed_body: { status: 400, meaning: 'The body is not valid JSON.' },
  bad_request: { status: 400, meaning: 'The request is malformed in another way (headers, framing).' },
  unauthorized: {
    status: 401,
    meaning: 'The API key (or metrics token) is missing, unknown, revoked or expired.',
  },
  forbidden: {
    status: 403,
    meaning: 'The API key lacks the scope this endpoint needs (`read`, `write` or `admin`).',
  },
  plan_required: {
    status: 403,
    meaning: "The account's plan does not include this feature (chains, Slack and Teams).",
  },
  plan_limit_reached: { status: 403, meaning: 'The plan allows no more of this resource (team members).' },
  quota_exhausted: {
    status: 403,
    meaning: 'A monthly allowance of the plan is spent; `Retry-After` gives the seconds until it resets.',
  },
  not_found: {
    status: 404,
    meaning: "No such resource in this account (another account's id answers this too).",
  },
  route_not_found: {
    status: 404,
    meaning: 'No endpoint at this method and path (check the base URL and `/v1`).',
  },
  conflict: {
    status: 409,
    meaning: 'The resource is in a state that does not allow this (e.g. cancelling a finished action).',
  },
  gone: {
    status: 410,
    meaning: 'A response link that no longer answers: expired, closed or already answered.',
  },
  payload_too_large: { status: 413, meaning: 'The body is larger than the server accepts.' },
  unsupported_media_type: {
    status: 415,
    meaning: 'The body is not `application/json` (or a form where one is accepted).',
  },
  validation_failed: {
    status: 422,
    meaning: '`errors` maps each invalid field, by dotted path, to its messages.',
  },
  rate_limited: { status: 429, meaning: 'A rate limit is spent; `Retry-After` gives the seconds to wait.' },
  internal_error: {
    status: 500,
    meaning: 'A fault of the server; the `x-request-id` header identifies it in the logs.',
  },
  service_unavailable: {
    status: 503,
    meaning: 'The server cannot serve now (database unreachable, shutting down); retry after a short wait.',
  },
} as const);

/**
 * What an API key may do: `read` for GET, `write` for every other method, `admin` to manage the account's API keys
 * (`/v1/api-keys`). Scopes do not imply each other: a key that manages keys and reads actions has `admin` and `read`.
 */
export const API_KEY_SCOPES = Object.freeze(['read', 'write', 'admin'] as const);
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
