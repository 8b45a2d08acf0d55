import { z } from 'zod';
import { Duration, E164, Email, NullableTimestamp, Timestamp, Uuid } from './common.js';
import { QuietHours } from './window.js';

/*
 * The approval vocabulary, each declared once as a frozen map: the schemas below, the server's rules and its SQL
 * (interpolated from these maps, as pg-boss's plans.ts does with its job states) all read them from here.
 */

/** Channels a gate can use. Slack and Teams are Business-plan features. */
export const GATE_CHANNEL = Object.freeze({
  email: 'email',
  sms: 'sms',
  teams: 'teams',
  slack: 'slack',
  push: 'push',
} as const);
export type GateChannelName = (typeof GATE_CHANNEL)[keyof typeof GATE_CHANNEL];
/** The channels a notification channel (`channel:<id>`) can be: chat webhooks, Business plan only. */
export const CHAT_CHANNELS = Object.freeze([GATE_CHANNEL.slack, GATE_CHANNEL.teams] as const);

/**
 * Whether the server can send a channel's messages: `configured` (its provider settings are set), `outbox` (a
 * development server keeps them for `sched outbox list`), `not_configured` (production: they cannot be sent).
 */
export const CHANNEL_STATE = Object.freeze({
  configured: 'configured',
  outbox: 'outbox',
  not_configured: 'not_configured',
} as const);
export type ChannelState = (typeof CHANNEL_STATE)[keyof typeof CHANNEL_STATE];
export type ChatChannelName = (typeof CHAT_CHANNELS)[number];

/**
 * A recipient's state. A snoozed recipient is asked again when the snooze ends. A reassigned one was handed over to
 * another recipient (`POST /v1/actions/{id}/recipients/{recipient_id}/reassign`): its links answer a page saying so,
 * and it no longer counts towards the gate.
 */
export const RECIPIENT_STATUS = Object.freeze({
  pending: 'pending',
  confirmed: 'confirmed',
  declined: 'declined',
  snoozed: 'snoozed',
  reassigned: 'reassigned',
} as const);
export type RecipientStatus = (typeof RECIPIENT_STATUS)[keyof typeof RECIPIENT_STATUS];

/** Who a recipient is: one of `gate.recipients`, or an escalation contact added when nobody answered. */
export const RECIPIENT_ROLE = Object.freeze({ recipient: 'recipient', escalation: 'escalation' } as const);
export type RecipientRole = (typeof RECIPIENT_ROLE)[keyof typeof RECIPIENT_ROLE];

/** What a gate does when nobody answered within `gate.timeout`. */
export const ON_TIMEOUT = Object.freeze({ cancel: 'cancel', expire: 'expire', approve: 'approve' } as const);
export type OnTimeout = (typeof ON_TIMEOUT)[keyof typeof ON_TIMEOUT];

/**
 * `first_response`: one confirmation approves. `all_required`: every recipient of `gate.recipients` must confirm.
 * `quorum`: `gate.min_approvals` confirmations, every `gate.required_recipients` among them.
 */
export const CONFIRMATION_MODE = Object.freeze({
  first_response: 'first_response',
  all_required: 'all_required',
  quorum: 'quorum',
} as const);
export type ConfirmationMode = (typeof CONFIRMATION_MODE)[keyof typeof CONFIRMATION_MODE];

/** When a recipient must write a comment with their answer (`gate.comment`). */
export const COMMENT_POLICY = Object.freeze({
  optional: 'optional',
  required_on_decline: 'required_on_decline',
  required: 'required',
} as const);
export type CommentPolicy = (typeof COMMENT_POLICY)[keyof typeof COMMENT_POLICY];

/** A recipient's answer through a response link. */
export const RESPONSE_DECISION = Object.freeze({
  confirm: 'confirm',
  decline: 'decline',
  snooze: 'snooze',
} as const);
export type ResponseDecision = (typeof RESPONSE_DECISION)[keyof typeof RESPONSE_DECISION];

/** The recipient's status an answer leaves. */
export const STATUS_AFTER_DECISION: Readonly<
  Record<ResponseDecision, Exclude<RecipientStatus, 'pending' | 'reassigned'>>
> = Object.freeze({ confirm: 'confirmed', decline: 'declined', snooze: 'snoozed' });

/** The approval timeline's event types. */
export const REMINDER_EVENT = Object.freeze({
  sent: 'sent',
  confirmed: 'confirmed',
  declined: 'declined',
  snoozed: 'snoozed',
  escalated: 'escalated',
  expired: 'expired',
  paused: 'paused',
  resumed: 'resumed',
  /** A recipient was handed over to another (notes: from whom, to whom, why). */
  reassigned: 'reassigned',
  /** Written by a bulk operation, naming it: the action was cancelled, retried or replayed. */
  cancelled: 'cancelled',
  retried: 'retried',
  replayed: 'replayed',
  /** A message could not go out on a channel (notes: which, and why: a channel this server has not configured). */
  not_sent: 'not_sent',
} as const);
export type ReminderEventType = (typeof REMINDER_EVENT)[keyof typeof REMINDER_EVENT];

/**
 * Where an answer came from: the response page (or its JSON answer), a Slack button, a reply to the approval
 * email, or a push notification's button.
 */
export const ANSWER_CHANNEL = Object.freeze({
  page: 'page',
  slack: 'slack',
  email_reply: 'email_reply',
  push: 'push',
} as const);
export type AnswerChannel = (typeof ANSWER_CHANNEL)[keyof typeof ANSWER_CHANNEL];

/** A Slack member id (`U…`, or `W…` on Enterprise Grid). */
export const SlackMemberId = z
  .string()
  .regex(/^[UW][A-Z0-9]{2,20}$/, 'must be a Slack member id such as U012AB3CD')
  .meta({ examples: ['U012AB3CD'] });

export const GateChannel = z.enum(GATE_CHANNEL).meta({ id: 'GateChannel' });

/** A file offered with the approval message: inline base64 content (sent by email, downloadable from the page) or a link. */
export const AttachmentInput = z
  .object({
    name: z.string().min(1).max(255),
    content_type: z.string().min(1).max(255).default('application/octet-stream'),
    content: z
      .string()
      .max(7_000_000)
      .optional()
      .meta({ description: 'Base64 content (at most 5 MiB decoded in all).' }),
    url: z
      .url()
      .max(2048)
      .optional()
      .meta({ description: 'A link to the file instead of its content; shown, never fetched.' }),
  })
  .refine((a) => (a.content === undefined) !== (a.url === undefined), {
    message: 'give exactly one of content or url',
  })
  .meta({
    id: 'AttachmentInput',
    examples: [
      {
        name: 'invoice.pdf',
        content_type: 'application/pdf',
        url: 'https://files.example.com/invoice-42.pdf',
      },
    ],
  });

export const Escalation = z
  .object({
    contacts: z.array(z.string().min(1).max(320)).min(1).max(10),
    after_hours: z.number().min(0.5),
  })
  .meta({
    id: 'Escalation',
    description: 'Sent to the contacts when nobody has answered after `after_hours`.',
  });

/** The kinds of value a gate's typed answer field holds (`gate.fields`). */
export const GATE_FIELD_TYPE = Object.freeze({
  string: 'string',
  text: 'text',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  enum: 'enum',
} as const);
export type GateFieldType = (typeof GATE_FIELD_TYPE)[keyof typeof GATE_FIELD_TYPE];

/** One value of a typed answer: what the approver left in a field. */
export const FieldValue = z.union([z.string().max(5000), z.number(), z.boolean()]).meta({ id: 'FieldValue' });
export type FieldValue = z.infer<typeof FieldValue>;

/**
 * A field of the typed answer: the response page shows it as a form input prefilled with `default` (the agent's
 * proposal), the approver may change it before confirming. Whether `default` itself fits the field is checked at
 * create with the rule that checks answers (422 `gate.fields.N.default`).
 */
export const GateField = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'letters, digits and _, not starting with a digit')
      .meta({ description: 'The key of the value in `values`, `{{values.<name>}}` and the callbacks.' }),
    label: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Shown on the page; default: the name.' }),
    type: z.enum(GATE_FIELD_TYPE),
    required: z.boolean().optional().meta({ description: 'A confirm needs a value (a decline never does).' }),
    default: FieldValue.optional(),
    options: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(50)
      .optional()
      .meta({ description: '`enum` only, and required there: the values allowed.' }),
    min: z.number().optional().meta({ description: '`integer` and `number`: the smallest value allowed.' }),
    max: z.number().optional().meta({ description: '`integer` and `number`: the largest value allowed.' }),
    max_length: z
      .number()
      .int()
      .min(1)
      .max(5000)
      .optional()
      .meta({ description: '`string` (default 200) and `text` (default 5000): the longest value allowed.' }),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'enum' && !f.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'is required for an enum' });
    if (f.type !== 'enum' && f.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'is only for an enum' });
    const numeric = f.type === 'integer' || f.type === 'number';
    for (const k of ['min', 'max'] as const)
      if (!numeric && f[k] !== undefined)
        ctx.addIssue({ code: 'custom', path: [k], message: 'is only for an integer or a number' });
    if (f.min !== undefined && f.max !== undefined && f.min > f.max)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be below min' });
    if (f.max_length !== undefined && f.type !== 'string' && f.type !== 'text')
      ctx.addIssue({ code: 'custom', path: ['max_length'], message: 'is only for a string or a text' });
  })
  .meta({
    id: 'GateField',
    examples: [
      { name: 'amount', label: 'Amount (EUR)', type: 'integer', required: true, default: 120, min: 1 },
    ],
  });
export type GateField = z.infer<typeof GateField>;

/** A standing grant an approver may give with a confirm: later requests with the same `key` are confirmed at once. */
export const GateGrant = z
  .object({
    key: z.string().trim().min(1).max(200).meta({
      description:
        'What the grant covers, e.g. `refund:customer-42`: requests of the account with the same key.',
    }),
    max_ttl: Duration.meta({
      description: 'The longest grant the approver may give, e.g. `1h`, `1d` (at most 30d).',
    }),
  })
  .meta({ id: 'GateGrant', examples: [{ key: 'deploy:staging', max_ttl: '1d' }] });

export const GateInput = z
  .object({
    message: z.string().min(1).max(5000),
    recipients: z.array(z.string().min(1).max(320)).min(1).meta({
      description:
        'Emails, E.164 phones, `contact:<id>:email|phone`, `channel:<uuid>` (a Slack or Teams channel), or team member ids.',
    }),
    channels: z
      .array(GateChannel)
      .min(1)
      .optional()
      .meta({ description: 'Default: what the recipients need (`email` for addresses, `sms` for phones).' }),
    buttons: z
      .array(z.string().trim().min(1).max(40))
      .length(2)
      .optional()
      .meta({ description: 'Confirm and decline labels.' }),
    confirmation_mode: z.enum(CONFIRMATION_MODE).default('first_response'),
    min_approvals: z.number().int().min(2).optional().meta({
      description:
        'With `confirmation_mode: "quorum"` (required there): how many confirmations approve, 2 to the number of recipients.',
    }),
    required_recipients: z.array(z.string().min(1).max(320)).max(50).optional().meta({
      description:
        'Recipients (addresses or `contact:` ids, among `recipients`) who must confirm whatever the count. A decline by one of them declines the gate at once.',
    }),
    exclude_requester: z.string().min(1).max(320).optional().meta({
      description:
        "The requester's address: their answer never counts. Refused at create when they would be needed for the quorum; their link answers a page saying so.",
    }),
    reminders: z
      .object({
        every: Duration,
        max: z.number().int().min(1).max(10),
        channels: z.array(GateChannel).min(1).optional(),
      })
      .optional()
      .meta({
        description:
          'Re-sends to recipients who have not answered every `every` (from the first send), at most `max` times, before the timeout. `channels` narrows which of their channels are used.',
        examples: [{ every: '1h', max: 2, channels: ['email'] }],
      }),
    comment: z.enum(COMMENT_POLICY).default('optional').meta({
      description:
        '`optional`; `required_on_decline`: a decline needs a comment; `required`: confirm and decline need one (422 naming `comment` otherwise; a snooze never does).',
    }),
    max_snoozes: z.number().int().min(0).max(10).default(5),
    timeout: Duration.default('7d'),
    on_timeout: z.enum(ON_TIMEOUT).default('cancel'),
    escalation: Escalation.optional(),
    escalation_contacts: z
      .array(z.string().min(1).max(320))
      .min(1)
      .max(10)
      .optional()
      .meta({ description: 'Flat form of `escalation.contacts`.' }),
    escalation_after_hours: z
      .number()
      .min(0.5)
      .optional()
      .meta({ description: 'Flat form of `escalation.after_hours`.' }),
    attachments: z.array(AttachmentInput).max(5).optional(),
    quiet_hours: QuietHours.optional(),
    fields: z
      .array(GateField)
      .max(20)
      .superRefine((fields, ctx) => {
        const seen = new Set<string>();
        fields.forEach((f, i) => {
          if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'is used twice' });
          seen.add(f.name);
        });
      })
      .optional()
      .meta({
        description:
          'A typed answer: up to 20 fields the page shows as a form, prefilled with their defaults; the answer is `recipients[].values`.',
      }),
    grant: GateGrant.optional().meta({
      description:
        'Lets the approver confirm and allow the same `key` for a while (up to `max_ttl`): requests with that key are then confirmed at once.',
    }),
    slack_responders: z.array(SlackMemberId).min(1).max(50).optional().meta({
      description:
        'Slack member ids allowed to answer with the buttons of a message posted to a Slack channel (app mode, `slack_channel_id`). Unset: any member of the channel. A direct message is answered only by its recipient.',
    }),
  })
  .meta({ id: 'GateInput' });
export type GateInput = z.output<typeof GateInput>;

export const ReminderEvent = z
  .object({
    id: Uuid,
    event_type: z.enum(REMINDER_EVENT),
    actor_email: z.string().nullable(),
    notes: z.string().nullable(),
    channel: z.enum(ANSWER_CHANNEL).nullable().meta({
      description:
        'For an answer (`confirmed`, `declined`, `snoozed`): where it came from (`page`, `slack`, `email_reply`, `push`); null for other events and answers recorded before it was kept.',
    }),
    created_at: Timestamp,
  })
  .meta({ id: 'ReminderEvent' });

export const Recipient = z
  .object({
    id: Uuid,
    email: z
      .string()
      .meta({ description: "The recipient's email address or phone number (or channel name)." }),
    status: z.enum(RECIPIENT_STATUS),
    responded_at: NullableTimestamp,
    response_comment: z.string().nullable(),
    display_name: z.string(),
    role: z.enum(RECIPIENT_ROLE),
    channels: z.array(GateChannel),
    reassigned_from: Uuid.nullable().meta({
      description: 'The recipient this one took over from (a reassignment); that one is now `reassigned`.',
    }),
    values: z.record(z.string(), FieldValue).nullable().meta({
      description:
        "The typed answer (`gate.fields`) this recipient's confirm or decline left; null otherwise.",
    }),
  })
  .meta({ id: 'Recipient' });

export const AttachmentView = z
  .object({
    id: Uuid,
    name: z.string(),
    content_type: z.string(),
    size: z.number().int().nullable(),
    url: z.string().nullable(),
  })
  .meta({ id: 'Attachment' });

export const GateView = z
  .object({
    message: z.string(),
    channels: z.array(GateChannel),
    buttons: z.array(z.string()),
    confirmation_mode: z.enum(CONFIRMATION_MODE),
    min_approvals: z.number().int().nullable(),
    required_recipients: z.array(z.string()),
    exclude_requester: z.string().nullable(),
    comment: z.enum(COMMENT_POLICY),
    reminders: z
      .object({ every: z.string(), max: z.number().int(), channels: z.array(GateChannel).nullable() })
      .nullable()
      .meta({ examples: [{ every: '1h', max: 2, channels: ['email'] }] }),
    reminders_sent: z.number().int(),
    max_snoozes: z.number().int(),
    snooze_count: z.number().int(),
    timeout: z.string(),
    on_timeout: z.enum(ON_TIMEOUT),
    escalation: z.object({ contacts: z.array(z.string()), after_hours: z.number() }).nullable(),
    quiet_hours: QuietHours.nullable(),
    attachments: z.array(AttachmentView),
    slack_responders: z.array(z.string()),
    sent_at: NullableTimestamp,
    expires_at: NullableTimestamp,
    escalated_at: NullableTimestamp,
    post_approval_action_id: Uuid.nullable().meta({
      description: 'The webhook action that runs the `request` after approval.',
    }),
    fields: z
      .array(GateField)
      .meta({ description: 'The typed answer asked for (`gate.fields`); empty when none.' }),
    grant: z
      .object({ key: z.string(), max_ttl: z.string() })
      .nullable()
      .meta({ description: 'What grant an approver may give (`gate.grant`).' }),
    granted_by: Uuid.nullable().meta({
      description: 'The standing grant that confirmed this request at once, without asking anyone.',
    }),
  })
  .meta({ id: 'Gate' });
export type GateView = z.infer<typeof GateView>;

/** A Slack conversation id: a public or private channel (`C…`, `G…`). */
const SlackChannelId = z
  .string()
  .regex(/^[CG][A-Z0-9]{2,20}$/, 'must be a Slack channel id such as C0123456789');

/** A Slack or Teams destination referenced by gate recipients as `channel:<id>`. */
export const NotificationChannel = z
  .object({
    id: Uuid,
    name: z.string(),
    type: z.enum(CHAT_CHANNELS),
    webhook_url: z.string().nullable().meta({
      description:
        'The incoming webhook (Slack) or Workflows URL (Teams); null for a Slack channel posted to by the app.',
    }),
    slack_channel_id: z.string().nullable().meta({
      description:
        'Slack app mode: the channel the bot posts to (it must be a member); null for a webhook channel.',
    }),
    warnings: z.array(z.string()).meta({
      description: "What needs the owner's attention, such as a Teams connector URL that Microsoft retired.",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'NotificationChannel' });
export const NotificationChannelCreate = z
  .object({
    name: z.string().trim().min(1).max(255),
    type: z.enum(CHAT_CHANNELS),
    webhook_url: z.url().max(2048).optional(),
    slack_channel_id: SlackChannelId.optional().meta({
      description:
        'Slack only, instead of `webhook_url`: post through the Slack app (`SCHED_SLACK_BOT_TOKEN`).',
    }),
  })
  .superRefine((c, ctx) => {
    if (c.type === 'teams' && c.slack_channel_id !== undefined)
      ctx.addIssue({ code: 'custom', path: ['slack_channel_id'], message: 'applies to Slack channels only' });
    else if ((c.webhook_url === undefined) === (c.slack_channel_id === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['webhook_url'],
        message: c.type === 'teams' ? 'is required' : 'give exactly one of webhook_url or slack_channel_id',
      });
  })
  .meta({
    id: 'NotificationChannelCreate',
    examples: [
      { name: 'deploys', type: 'slack', webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXX' },
    ],
  });
export const NotificationChannelUpdate = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    webhook_url: z.url().max(2048).optional(),
    slack_channel_id: SlackChannelId.optional(),
  })
  .refine((c) => c.webhook_url === undefined || c.slack_channel_id === undefined, {
    message: 'give at most one of webhook_url or slack_channel_id',
    path: ['webhook_url'],
  })
  .meta({ id: 'NotificationChannelUpdate' });

export const PushSubscription = z
  .object({
    endpoint: z.url().max(2048),
    keys: z.object({ p256dh: z.string().min(1).max(256), auth: z.string().min(1).max(64) }),
  })
  .meta({
    id: 'PushSubscription',
    description: "A browser's Web Push subscription (PushSubscription.toJSON()).",
  });

/** A person of the account whose id can be a gate recipient: reached by email, SMS and Web Push. */
export const TeamMember = z
  .object({
    id: Uuid,
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    push_subscriptions: z.array(PushSubscription),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'TeamMember' });
export const TeamMemberCreate = z
  .object({
    name: z.string().trim().min(1).max(255),
    email: Email.max(255).nullish(),
    phone: E164.nullish(),
    push_subscriptions: z.array(PushSubscription).max(10).default([]),
  })
  .refine((m) => Boolean(m.email) || Boolean(m.phone) || m.push_subscriptions.length > 0, {
    message: 'give at least one of email, phone or a push subscription',
    path: ['email'],
  })
  .meta({ id: 'TeamMemberCreate', examples: [{ name: 'Ada Lovelace', email: 'ada@example.com' }] });
export const TeamMemberUpdate = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    email: Email.max(255).nullish(),
    phone: E164.nullish(),
    push_subscriptions: z.array(PushSubscription).max(10).optional(),
  })
  .meta({ id: 'TeamMemberUpdate' });

/** `POST /v1/actions/{id}/recipients/{recipient_id}/reassign`: who takes the recipient's place, and why. */
export const ReassignBody = z
  .object({
    to: z.string().trim().min(1).max(320).meta({
      description:
        "An email address, an E.164 phone, `contact:<id>:email|phone`, `channel:<id>` or a team member id, resolved like `gate.recipients` (and reached through the gate's channels).",
    }),
    reason: z.string().trim().max(500).optional().meta({
      description: 'Why: kept on the timeline and in the audit log.',
    }),
  })
  .meta({ id: 'ReassignBody', examples: [{ to: 'grace@example.com', reason: 'Ada is on leave' }] });
export type ReassignBody = z.infer<typeof ReassignBody>;

/** The JSON form of an answer posted to a response link. */
export const ResponseInput = z
  .object({
    decision: z.enum(RESPONSE_DECISION),
    comment: z.string().max(500).optional(),
    snooze_for: Duration.optional().meta({ description: 'How long to snooze; default 1h.' }),
    values: z.record(z.string(), FieldValue.nullable()).optional().meta({
      description:
        'The typed answer (`gate.fields`): a field left out takes its default; a confirm needs the required ones (422 `values.<name>`).',
    }),
    grant_ttl: Duration.optional().meta({
      description:
        'With a confirm of a gate with `grant`: allow the same key for this long (up to `grant.max_ttl`).',
    }),
    via: z.enum([ANSWER_CHANNEL.page, ANSWER_CHANNEL.push]).optional().meta({
      description:
        "Where the answer was given: `push` when a push notification's button answered (the service worker sends it); default `page`.",
    }),
  })
  .meta({ id: 'ResponseInput' });
export const ResponseResult = z
  .object({
    action_id: Uuid,
    recipient_id: Uuid,
    decision: z.enum(RESPONSE_DECISION),
    recipient_status: z.enum(RECIPIENT_STATUS),
    action_status: z.string(),
    snoozed_until: NullableTimestamp,
    approvals_needed: z.number().int().nullable().meta({
      description: 'A quorum gate still waiting: how many more approvals are needed; null otherwise.',
    }),
  })
  .meta({ id: 'ResponseResult' });

export type NotificationChannel = z.infer<typeof NotificationChannel>;
export type TeamMember = z.infer<typeof TeamMember>;
export type ReminderEvent = z.infer<typeof ReminderEvent>;
export type Recipient = z.infer<typeof Recipient>;
export type ResponseResult = z.infer<typeof ResponseResult>;

/** One row of `GET /v1/approvals`: an approval action and where each recipient stands. */
export const ApprovalSummary = z
  .object({
    id: Uuid,
    name: z.string(),
    status: z.string(),
    confirmation_mode: z.enum(CONFIRMATION_MODE),
    min_approvals: z.number().int().nullable(),
    sent_at: NullableTimestamp,
    expires_at: NullableTimestamp,
    reminders_sent: z.number().int(),
    overdue: z.boolean().meta({ description: 'A reminder has gone out, or it times out within the hour.' }),
    recipients: z.array(Recipient),
    created_at: Timestamp,
  })
  .meta({ id: 'ApprovalSummary' });
export type ApprovalSummary = z.infer<typeof ApprovalSummary>;
