import { z } from 'zod';
import { ON_TIMEOUT, RESPONSE_DECISION } from './approval.js';
import { MISSED_POLICIES } from '../vocabulary.js';
import { ActionStatus } from './action.js';
import { Timestamp, Uuid } from './common.js';

/** The lifecycle events sched POSTs to an action's callback_url (docs/callbacks.md). */
export const ACTION_CALLBACK_EVENTS = Object.freeze([
  'action.executed',
  'action.failed',
  'action.expired',
  'action.paused',
  'action.resumed',
  'reminder.responded',
] as const);
export type ActionCallbackEvent = (typeof ACTION_CALLBACK_EVENTS)[number];

const actionEnvelope = <E extends ActionCallbackEvent, P extends z.ZodType>(event: E, payload: P) =>
  z.object({
    id: Uuid.meta({ description: 'This event, the same on every retry of it (also sent as webhook-id).' }),
    event: z.literal(event),
    action_id: Uuid,
    action_name: z.string(),
    timestamp: Timestamp.meta({ description: 'When the event happened, not when this attempt was sent.' }),
    payload,
  });

export const ActionExecutedCallback = actionEnvelope(
  'action.executed',
  z.object({
    status: z.literal('executed'),
    response_code: z.number().int().meta({ description: 'The 2xx status.' }),
    duration_ms: z.number().int().meta({ description: 'Duration of the successful attempt.' }),
    attempt_number: z
      .number()
      .int()
      .meta({ description: 'Which attempt succeeded, from 1 within the cycle.' }),
  }),
).meta({ id: 'ActionExecutedCallback', description: 'A delivery got a 2xx answer.' });

export const ActionFailedCallback = actionEnvelope(
  'action.failed',
  z.object({
    status: z.literal('failed'),
    response_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The last HTTP status; null without an HTTP response.' }),
    total_attempts: z.number().int(),
    error_message: z.string().nullable(),
  }),
).meta({ id: 'ActionFailedCallback', description: 'The action became `failed`.' });

export const ActionExpiredCallback = actionEnvelope(
  'action.expired',
  z.object({
    status: ActionStatus,
    on_timeout: z.enum(ON_TIMEOUT),
    timeout: z.string().meta({ description: 'The gate timeout that elapsed, as given (e.g. `24h`).' }),
    expired_at: Timestamp,
    pending_recipients: z.array(z.string()).meta({ description: 'Addresses that had not answered.' }),
  }),
).meta({ id: 'ActionExpiredCallback', description: 'An approval timed out.' });

export const ActionPausedCallback = actionEnvelope(
  'action.paused',
  z.object({
    status: z.literal('paused'),
    paused_at: Timestamp,
    until: Timestamp.nullable().meta({ description: 'When it resumes by itself; null: until resumed.' }),
    note: z.string().nullable(),
  }),
).meta({ id: 'ActionPausedCallback', description: 'The action was paused (docs/operations.md).' });

export const ActionResumedCallback = actionEnvelope(
  'action.resumed',
  z.object({
    status: ActionStatus.meta({
      description: '`scheduled`, `awaiting_response`, or `expired` when `skip` left nothing to run.',
    }),
    missed: z.enum(MISSED_POLICIES),
    paused_at: Timestamp,
    paused_ms: z.number().int().meta({ description: 'How long it was paused.' }),
    next_attempt_at: Timestamp.nullable(),
  }),
).meta({ id: 'ActionResumedCallback', description: 'The action was resumed, by request or by its `until`.' });

export const ReminderRespondedCallback = actionEnvelope(
  'reminder.responded',
  z.object({
    status: ActionStatus.meta({ description: "The action's status after the answer." }),
    response: z.enum(['confirmed', 'declined', 'snoozed']),
    decision: z.enum(RESPONSE_DECISION),
    respondent: z.string().meta({ description: "The recipient's address." }),
    recipient_id: Uuid,
    comment: z.string().nullable(),
    snoozed_until: Timestamp.optional(),
  }),
).meta({ id: 'ReminderRespondedCallback', description: 'A recipient answered an approval.' });

/** Every body an action's callback_url may receive, by `event`. */
export const ActionCallback = z
  .discriminatedUnion('event', [
    ActionExecutedCallback,
    ActionFailedCallback,
    ActionExpiredCallback,
    ActionPausedCallback,
    ActionResumedCallback,
    ReminderRespondedCallback,
  ])
  .meta({ id: 'ActionCallback' });
export type ActionCallback = z.infer<typeof ActionCallback>;
