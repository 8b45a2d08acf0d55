import { z } from 'zod';
import { Duration, E164, Email, NullableTimestamp, Timestamp, Uuid } from './common.js';

/** Channels a gate can use (spec 4.1). Slack and Teams are Business-plan features. */
export const GateChannel = z.enum(['email', 'sms', 'teams', 'slack', 'push']).meta({ id: 'GateChannel' });

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
  .meta({ id: 'AttachmentInput' });

export const Escalation = z
  .object({
    contacts: z.array(z.string().min(1).max(320)).min(1).max(10),
    after_hours: z.number().min(0.5),
  })
  .meta({
    id: 'Escalation',
    description: 'Sent to the contacts when nobody has answered after `after_hours`.',
  });

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
    confirmation_mode: z.enum(['first_response', 'all_required']).default('first_response'),
    max_snoozes: z.number().int().min(0).max(10).default(5),
    timeout: Duration.default('7d'),
    on_timeout: z.enum(['cancel', 'expire', 'approve']).default('cancel'),
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
  })
  .meta({ id: 'GateInput' });
export type GateInput = z.output<typeof GateInput>;

export const ReminderEvent = z
  .object({
    id: Uuid,
    event_type: z.enum(['sent', 'confirmed', 'declined', 'snoozed', 'escalated', 'expired']),
    actor_email: z.string().nullable(),
    notes: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'ReminderEvent' });

export const Recipient = z
  .object({
    id: Uuid,
    email: z
      .string()
      .meta({ description: "The recipient's email address or phone number (or channel name)." }),
    status: z.enum(['pending', 'confirmed', 'declined', 'snoozed']),
    responded_at: NullableTimestamp,
    response_comment: z.string().nullable(),
    display_name: z.string(),
    role: z.enum(['recipient', 'escalation']),
    channels: z.array(GateChannel),
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
    confirmation_mode: z.enum(['first_response', 'all_required']),
    max_snoozes: z.number().int(),
    snooze_count: z.number().int(),
    timeout: z.string(),
    on_timeout: z.enum(['cancel', 'expire', 'approve']),
    escalation: z.object({ contacts: z.array(z.string()), after_hours: z.number() }).nullable(),
    attachments: z.array(AttachmentView),
    sent_at: NullableTimestamp,
    expires_at: NullableTimestamp,
    escalated_at: NullableTimestamp,
    post_approval_action_id: Uuid.nullable().meta({
      description: 'The webhook action that runs the `request` after approval.',
    }),
  })
  .meta({ id: 'Gate' });
export type GateView = z.infer<typeof GateView>;

/** A Slack or Teams destination referenced by gate recipients as `channel:<id>`. */
export const NotificationChannel = z
  .object({
    id: Uuid,
    name: z.string(),
    type: z.enum(['slack', 'teams']),
    webhook_url: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'NotificationChannel' });
export const NotificationChannelCreate = z
  .object({
    name: z.string().trim().min(1).max(255),
    type: z.enum(['slack', 'teams']),
    webhook_url: z.url().max(2048),
  })
  .meta({ id: 'NotificationChannelCreate' });
export const NotificationChannelUpdate = z
  .object({ name: z.string().trim().min(1).max(255).optional(), webhook_url: z.url().max(2048).optional() })
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
  .meta({ id: 'TeamMemberCreate' });
export const TeamMemberUpdate = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    email: Email.max(255).nullish(),
    phone: E164.nullish(),
    push_subscriptions: z.array(PushSubscription).max(10).optional(),
  })
  .meta({ id: 'TeamMemberUpdate' });

/** The JSON form of an answer posted to a response link. */
export const ResponseInput = z
  .object({
    decision: z.enum(['confirm', 'decline', 'snooze']),
    comment: z.string().max(500).optional(),
    snooze_for: Duration.optional().meta({ description: 'How long to snooze; default 1h.' }),
  })
  .meta({ id: 'ResponseInput' });
export const ResponseResult = z
  .object({
    action_id: Uuid,
    recipient_id: Uuid,
    decision: z.enum(['confirm', 'decline', 'snooze']),
    recipient_status: z.enum(['pending', 'confirmed', 'declined', 'snoozed']),
    action_status: z.string(),
    snoozed_until: NullableTimestamp,
  })
  .meta({ id: 'ResponseResult' });

export type NotificationChannel = z.infer<typeof NotificationChannel>;
export type TeamMember = z.infer<typeof TeamMember>;
export type ReminderEvent = z.infer<typeof ReminderEvent>;
export type Recipient = z.infer<typeof Recipient>;
export type ResponseResult = z.infer<typeof ResponseResult>;
