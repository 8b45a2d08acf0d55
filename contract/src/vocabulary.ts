/**
 * The vocabulary of sched, each list declared once: the contract's schemas, the server's domain rules, its SQL
 * (interpolated from these constants, as pg-boss's plans.ts does with its job states), the SDK and the CLI all use
 * these. Glossary:
 * - action state: where an action is in its life (spec 3.1); the transitions are in server/src/domain/action/states.ts.
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
  'executed',
  'failed',
  'expired',
  'cancelled',
] as const);
export type ActionState = (typeof ACTION_STATES)[number];
/** Former names of states that filters still accept. */
export const LEGACY_ACTION_STATES = Object.freeze({ pending_resolution: 'scheduled' } as const);

export const ACTION_MODES = Object.freeze(['webhook', 'approval'] as const);
/** The legacy names of modes (spec 9), accepted on input. */
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
 * Why a delivery attempt did not succeed (issue 23): `http` a non-2xx answer, `timeout` no answer in time, `dns` the
 * name did not resolve, `connect` the connection was refused or reset, `tls` the TLS handshake failed, `blocked` the
 * destination policy (SSRF guard) refused it. A successful attempt has none.
 */
export const ERROR_CLASSES = Object.freeze(['timeout', 'dns', 'connect', 'tls', 'http', 'blocked'] as const);
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** What a bulk operation does to each action it matched. */
export const BULK_OPERATIONS = Object.freeze(['cancel', 'retry', 'replay', 'pause', 'resume'] as const);
export type BulkOperationKind = (typeof BULK_OPERATIONS)[number];
/** A bulk operation runs until every matched action is processed (`completed`) or someone stops it (`stopped`). */
export const BULK_OPERATION_STATES = Object.freeze(['running', 'completed', 'stopped'] as const);
export type BulkOperationState = (typeof BULK_OPERATION_STATES)[number];
/** What a bulk operation did to one action. */
export const BULK_ITEM_OUTCOMES = Object.freeze(['affected', 'skipped', 'failed'] as const);
export type BulkItemOutcome = (typeof BULK_ITEM_OUTCOMES)[number];
