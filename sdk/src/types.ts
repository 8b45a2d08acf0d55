import type {
  ActionCreateBody as ActionCreateBodyType,
  ActionListQuery as ActionListQuerySchema,
  ActionStatus as ActionStatusSchema,
  AttachmentInput as AttachmentInputSchema,
  AttachmentView as AttachmentViewSchema,
  CancelByKeyResult as CancelByKeyResultSchema,
  CancelledAction as CancelledActionSchema,
  DeliveryAttempt as DeliveryAttemptSchema,
  DeliveryAttemptsPage as DeliveryAttemptsPageSchema,
  GateChannel as GateChannelSchema,
  GateView as GateViewType,
  HttpRequestConfig as HttpRequestConfigSchema,
  NotificationChannelCreate as NotificationChannelCreateSchema,
  NotificationChannelUpdate as NotificationChannelUpdateSchema,
  PaginationMeta as PaginationMetaSchema,
  PushSubscription as PushSubscriptionSchema,
  Recurrence as RecurrenceSchema,
  ResponseDecision,
  RetriedAction as RetriedActionSchema,
  Schedule as ScheduleSchema,
  TeamMemberCreate as TeamMemberCreateSchema,
  TeamMemberUpdate as TeamMemberUpdateSchema,
} from '@sched/contract';
import type { z } from 'zod';

/*
 * Glossary of the types the SDK answers with. Resources keep the API's snake_case field names, so what the SDK
 * returns is exactly what `GET /v1/actions/{id}` shows and the docs describe.
 */

export type {
  Action,
  ActionCreateBody,
  ActionStats,
  ActionSummary,
  Contact,
  ContactCreate,
  ContactUpdate,
  FieldValue,
  GateField,
  Grant,
  NotificationChannel,
  Quota,
  Recipient,
  ReminderEvent,
  ResponseResult,
  TeamMember,
} from '@sched/contract';

/**
 * Where an action is: `scheduled`, `resolved` (due within a minute, a worker holds it), `executing`,
 * `awaiting_response` (an approval waits for answers), or final: `executed`, `failed`, `expired`, `cancelled`.
 */
export type ActionStatus = z.infer<typeof ActionStatusSchema>;
/** One delivery attempt of an action: when it was due, when it started and how late (`lateness_ms`). */
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;
/**
 * A page of an action's attempts (`GET /v1/actions/{id}/attempts`), newest first: pass `meta.next_before` as
 * `before` for the next, older page (null on the last).
 */
export type DeliveryAttemptsPage = z.infer<typeof DeliveryAttemptsPageSchema>;
/** `before` (a cursor of an earlier page) and `limit` (1-100, default 50) of `actions.attempts`. */
export interface AttemptsQuery {
  before?: string;
  limit?: number;
}
/** `recurrence` (alias `repeat`) of an action. */
export type Recurrence = z.infer<typeof RecurrenceSchema>;
/** `{ current_page, last_page, total, per_page }` of every list answer. */
export type PaginationMeta = z.infer<typeof PaginationMetaSchema>;
/** The answer of a cancel by id or by idempotency key. */
export type CancelledAction = z.infer<typeof CancelledActionSchema>;
/** The answer of `DELETE /actions/by-coordination-key`. */
export type CancelByKeyResult = z.infer<typeof CancelByKeyResultSchema>;
/** The answer of `POST /actions/{id}/retry`. */
export type RetriedAction = z.infer<typeof RetriedActionSchema>;

/** Filters of `GET /actions`. `page` starts at 1; `per_page` is 1-100 (default 25). */
export type ActionListQuery = Omit<z.input<typeof ActionListQuerySchema>, 'page' | 'per_page'> & {
  page?: number;
  per_page?: number;
};

/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  meta: PaginationMeta;
}

/*
 * Approvals. `Recipient` (`email` holds the address, phone or channel name) and `ReminderEvent` (
 * the timeline) are the entries of an action's `recipients` and `reminder_events`.
 */

/** The `gate` of an approval action as written in a create body (defaults left out). */
export type GateInput = NonNullable<ActionCreateBodyType['gate']>;
/** The `gate` of an approval action as the API shows it, with `snooze_count`, `expires_at` and the rest. */
export type Gate = GateViewType;
/** A channel a gate sends through: `email`, `sms`, `teams`, `slack`, `push`. */
export type GateChannel = z.infer<typeof GateChannelSchema>;
/** A file sent with the approval message: base64 `content` or a `url`, never both. */
export type AttachmentInput = z.input<typeof AttachmentInputSchema>;
/** An attachment as the API shows it (`size` in bytes, null for links). */
export type Attachment = z.infer<typeof AttachmentViewSchema>;
/** `schedule` of a create body: one of `preset` or `wait`, with an optional `timezone`. */
export type Schedule = z.input<typeof ScheduleSchema>;
/** An HTTP request: a webhook action's delivery, or an approval's post-approval request. */
export type HttpRequestInput = z.input<typeof HttpRequestConfigSchema>;
/** Body of `POST /v1/channels`: a Slack or Teams incoming webhook (Business plan). */
export type NotificationChannelCreate = z.input<typeof NotificationChannelCreateSchema>;
/** Body of `PUT /v1/channels/{id}`: only the fields given change. */
export type NotificationChannelUpdate = z.input<typeof NotificationChannelUpdateSchema>;
/** A browser's Web Push subscription, as `PushSubscription.toJSON()` gives it. */
export type PushSubscription = z.infer<typeof PushSubscriptionSchema>;
/** Body of `POST /v1/team-members`: a name and at least one of email, phone or push subscription. */
export type TeamMemberCreate = z.input<typeof TeamMemberCreateSchema>;
/** Body of `PUT /v1/team-members/{id}`: only the fields given change; `push_subscriptions` replaces the list. */
export type TeamMemberUpdate = z.input<typeof TeamMemberUpdateSchema>;
/** What a response link accepts: `confirm`, `decline` or `snooze`. */
export type Decision = ResponseDecision;

/*
 * Templates: `Template` is the detail view (token and URL masked except in the create answer),
 * `TemplateSummary` a list entry, `TriggerAnswer` what a trigger URL answers.
 */
export type {
  Template,
  TemplateCreateBody,
  TemplateSummary,
  TemplateUpdateBody,
  TriggerAnswer,
} from '@sched/contract';
