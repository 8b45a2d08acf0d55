import { z } from 'zod';
import { ActionMode, WebhookSecret } from './action.js';
import { Duration, E164, Email, NullableTimestamp, paginationQuery, Timestamp, Uuid } from './common.js';
import { DestinationHost } from './destination.js';

/**
 * Alert rules (docs/alerts.md): which operator events an account is told of, and through which channels. The
 * events are facts the service records in the transaction that causes them; a worker matches them to the rules.
 */
export const OPERATOR_EVENT_TYPES = Object.freeze([
  'action.failed',
  'approval.expired',
  'destination.circuit_opened',
  'destination.circuit_closed',
  'destination.disabled',
  'delivery.late',
  'bulk_operation.completed',
  'notification.undeliverable',
] as const);
export type OperatorEventType = (typeof OPERATOR_EVENT_TYPES)[number];

/** The channel types an alert goes out on: the approval channels but push, and signed webhooks. */
export const ALERT_CHANNEL_TYPES = Object.freeze(['email', 'sms', 'slack', 'teams', 'webhook'] as const);
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

/** Defaults and bounds of a rule's timing (documented in docs/alerts.md; durations use the `Duration` grammar). */
export const ALERT_DEFAULTS = Object.freeze({
  group_wait: '2m',
  repeat_every: '1h',
  late_after: '1m',
} as const);
export const ALERT_LIMITS = Object.freeze({
  rules_per_account: 100,
  channels_per_rule: 10,
  threshold_count_max: 1000,
  /** The longest `group_wait`, `threshold.window` and `repeat_every` (in the Duration grammar's units). */
  group_wait_max_ms: 3_600_000,
  window_max_ms: 7 * 86_400_000,
  repeat_every_max_ms: 7 * 86_400_000,
  /** `late_after` at least this: a delivery less late than this is never looked at (no cost on the hot path). */
  late_after_min_ms: 1_000,
  late_after_max_ms: 86_400_000,
} as const);

/** The states of one alert notification (one message on one channel). */
export const ALERT_NOTIFICATION_STATES = Object.freeze(['pending', 'sent', 'failed'] as const);

export const OperatorEventTypeSchema = z.enum(OPERATOR_EVENT_TYPES).meta({
  id: 'OperatorEventType',
  description:
    'An operator event: `action.failed` (a delivery failed for good), `approval.expired` (a gate timed out), ' +
    "`destination.circuit_opened` / `destination.circuit_closed` / `destination.disabled` (a host's circuit), " +
    '`delivery.late` (an attempt started more than `late_after` after its due time), `bulk_operation.completed`, ' +
    '`notification.undeliverable` (an approval message could not go out on a channel this server has not configured).',
});

const EmailChannel = z.strictObject({ type: z.literal('email'), to: Email.max(255) });
const SmsChannel = z.strictObject({ type: z.literal('sms'), to: E164 });
const ChatChannel = z.strictObject({
  type: z.enum(['slack', 'teams']),
  channel: Uuid.meta({
    description: 'The id of a Slack or Teams channel resource (`/v1/channels`) of that type.',
  }),
});
const WebhookChannel = z.strictObject({
  type: z.literal('webhook'),
  url: z.string().min(1).max(2048).meta({ description: 'Receives the alert as a signed JSON POST.' }),
  secret: WebhookSecret.optional().meta({
    description:
      'Signs each alert as webhook deliveries are signed (docs/signatures.md). Never shown again: views say `signed`. ' +
      'On update, a webhook channel given without `secret` keeps the secret of the stored channel with the same `url`.',
  }),
});

export const AlertChannelInput = z
  .discriminatedUnion('type', [EmailChannel, SmsChannel, ChatChannel, WebhookChannel])
  .meta({ id: 'AlertChannelInput', description: 'Where an alert goes.' });
export type AlertChannelInput = z.infer<typeof AlertChannelInput>;

/** What a key without the `write` scope reads of a channel's address, number or URL: masked (docs/security.md). */
const MASKED_FOR_READ_KEYS = 'Masked for a key without the `write` scope';

export const AlertChannel = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('email'),
      to: z.string().meta({ description: `${MASKED_FOR_READ_KEYS} (\`j***@example.com\`).` }),
    }),
    z.object({
      type: z.literal('sms'),
      to: z.string().meta({ description: `${MASKED_FOR_READ_KEYS} (\`+1******0100\`).` }),
    }),
    ChatChannel,
    z.object({
      type: z.literal('webhook'),
      url: z
        .string()
        .meta({ description: `${MASKED_FOR_READ_KEYS}: its origin only (\`https://host/***\`).` }),
      signed: z
        .boolean()
        .meta({ description: 'Whether a secret signs its alerts (the secret is never shown).' }),
    }),
  ])
  .meta({ id: 'AlertChannel' });
export type AlertChannel = z.infer<typeof AlertChannel>;

export const AlertFilter = z
  .strictObject({
    mode: ActionMode.optional().meta({ description: 'Only events about actions of this mode.' }),
    destination_host: DestinationHost.optional().meta({ description: 'Only events about this host.' }),
    destination_origin: z.string().min(1).max(300).optional().meta({
      description:
        'Only events about this destination: an origin (`http://127.0.0.1:9000`; a bare host means its https origin on the default port).',
    }),
    dedup_key: z.string().min(1).max(255).optional().meta({
      description: 'Only events about actions carrying this dedup key.',
    }),
  })
  .meta({
    id: 'AlertFilter',
    description: 'Every field given must hold; an event that does not carry a field given does not match.',
  });

/** The filter as answered (the input's host and origin normalisation has been applied). */
const AlertFilterView = z
  .object({
    mode: ActionMode.optional(),
    destination_host: z.string().optional(),
    destination_origin: z.string().optional(),
    dedup_key: z.string().optional(),
  })
  .meta({ id: 'AlertFilterView' });

export const AlertThreshold = z
  .strictObject({
    count: z.number().int().min(1).max(ALERT_LIMITS.threshold_count_max),
    window: Duration.meta({ description: 'At most 7d.' }),
  })
  .meta({
    id: 'AlertThreshold',
    description: 'Alert only once `count` matching events fall within `window` (a sliding window).',
  });

const ruleFields = {
  name: z.string().trim().min(1).max(255),
  enabled: z.boolean().optional().meta({ description: 'Default true; a disabled rule matches nothing.' }),
  events: z
    .array(OperatorEventTypeSchema)
    .min(1)
    .max(OPERATOR_EVENT_TYPES.length)
    .refine((e) => new Set(e).size === e.length, { message: 'must not repeat an event' }),
  filter: AlertFilter.optional(),
  threshold: AlertThreshold.optional(),
  channels: z.array(AlertChannelInput).min(1).max(ALERT_LIMITS.channels_per_rule),
  group_wait: Duration.optional().meta({
    description: `Events within this time of the first go out as one message (default \`${ALERT_DEFAULTS.group_wait}\`, at most 1h).`,
  }),
  repeat_every: Duration.optional().meta({
    description: `At most one message per this time while the condition goes on (default \`${ALERT_DEFAULTS.repeat_every}\`, at most 7d).`,
  }),
  late_after: Duration.optional().meta({
    description: `With \`delivery.late\` only: a delivery counts as late when its attempt starts more than this after its due time (default \`${ALERT_DEFAULTS.late_after}\`, 1s to 1d).`,
  }),
};

export const AlertRuleCreateBody = z.strictObject(ruleFields).meta({
  id: 'AlertRuleCreate',
  examples: [
    {
      name: 'Failures to the billing receiver',
      events: ['action.failed'],
      filter: { destination_host: 'billing.example.com' },
      threshold: { count: 5, window: '10m' },
      channels: [{ type: 'email', to: 'oncall@example.com' }],
      group_wait: '2m',
      repeat_every: '1h',
    },
  ],
});
export type AlertRuleCreateBody = z.input<typeof AlertRuleCreateBody>;
export type AlertRuleCreateParsed = z.output<typeof AlertRuleCreateBody>;

/** Fields an update may clear with `null` (their default applies again). */
export const ALERT_RULE_CLEARABLE_FIELDS = [
  'filter',
  'threshold',
  'group_wait',
  'repeat_every',
  'late_after',
] as const satisfies readonly (keyof typeof ruleFields)[];

export const AlertRuleUpdateBody = z
  .strictObject({
    name: ruleFields.name.optional(),
    enabled: ruleFields.enabled,
    events: ruleFields.events.optional(),
    channels: ruleFields.channels.optional(),
    ...(Object.fromEntries(ALERT_RULE_CLEARABLE_FIELDS.map((k) => [k, ruleFields[k].nullable()])) as {
      [K in (typeof ALERT_RULE_CLEARABLE_FIELDS)[number]]: z.ZodNullable<(typeof ruleFields)[K]>;
    }),
  })
  .meta({
    id: 'AlertRuleUpdate',
    description:
      'Only the fields given change (`channels` and `events` are replaced whole); `null` clears an optional field.',
  });
export type AlertRuleUpdateBody = z.input<typeof AlertRuleUpdateBody>;
export type AlertRuleUpdateParsed = z.output<typeof AlertRuleUpdateBody>;

export const AlertNotification = z
  .object({
    id: Uuid,
    test: z.boolean().meta({ description: 'Sent by `POST /v1/alert-rules/{id}/test`.' }),
    channel: z.number().int().meta({ description: "The index of the channel in the rule's `channels`." }),
    type: z.enum(ALERT_CHANNEL_TYPES),
    status: z.enum(ALERT_NOTIFICATION_STATES),
    count: z.number().int().meta({ description: 'How many events the message reports.' }),
    attempts: z.number().int(),
    error: z.string().nullable(),
    created_at: Timestamp,
    sent_at: NullableTimestamp,
  })
  .meta({ id: 'AlertNotification', description: 'One alert message on one channel.' });
export type AlertNotification = z.infer<typeof AlertNotification>;

export const AlertRule = z
  .object({
    id: Uuid,
    name: z.string(),
    enabled: z.boolean(),
    events: z.array(OperatorEventTypeSchema),
    filter: AlertFilterView.nullable(),
    threshold: AlertThreshold.nullable(),
    channels: z.array(AlertChannel),
    group_wait: z.string().meta({ description: 'In force (the default when not set).' }),
    repeat_every: z.string().meta({ description: 'In force (the default when not set).' }),
    late_after: z
      .string()
      .nullable()
      .meta({ description: 'In force with `delivery.late`; null without it.' }),
    state: z
      .object({
        pending: z
          .number()
          .int()
          .meta({ description: 'Matching events waiting to go out in the next message.' }),
        next_alert_at: NullableTimestamp.meta({ description: 'When the waiting events go out.' }),
        last_alerted_at: NullableTimestamp,
      })
      .meta({ description: "The rule's evaluation state." }),
    recent_notifications: z.array(AlertNotification).meta({
      description: 'The last 20 messages sent for the rule (tests included), newest first.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'AlertRule' });
export type AlertRule = z.infer<typeof AlertRule>;

export const AlertRuleSummary = AlertRule.omit({ recent_notifications: true }).meta({
  id: 'AlertRuleSummary',
});
export type AlertRuleSummary = z.infer<typeof AlertRuleSummary>;

export const AlertRuleListQuery = z.object(paginationQuery(25));

export const AlertTestResult = z
  .object({
    rule_id: Uuid,
    notifications: z.array(AlertNotification),
  })
  .meta({
    id: 'AlertTestResult',
    description:
      'One queued message per channel; a worker sends them within a second or so. Each outcome shows in the ' +
      "rule's `recent_notifications`.",
  });
export type AlertTestResult = z.infer<typeof AlertTestResult>;

export const AlertSample = z
  .object({
    type: OperatorEventTypeSchema,
    at: Timestamp,
    destination_host: z.string().nullable(),
    subject: z
      .object({ type: z.enum(['action', 'destination', 'bulk_operation', 'chain']), id: z.string() })
      .nullable(),
    summary: z.string().meta({ description: 'One line for people.' }),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AlertSample', description: 'One of the events an alert reports.' });

/** What a webhook channel receives (POST, JSON, signed like webhook deliveries). */
export const AlertWebhookBody = z
  .object({
    id: Uuid.meta({
      description: 'The message id, also `webhook-id`: the same on every retry of this message.',
    }),
    type: z.literal('alert'),
    test: z.boolean().meta({ description: 'True for a sample sent by `POST /v1/alert-rules/{id}/test`.' }),
    rule: z.object({ id: Uuid, name: z.string() }),
    count: z.number().int().meta({ description: 'How many matching events this message reports.' }),
    first_at: Timestamp,
    last_at: Timestamp,
    threshold: AlertThreshold.nullable(),
    events: z.array(OperatorEventTypeSchema).meta({ description: 'The event types of the sample.' }),
    sample: z.array(AlertSample).meta({ description: 'The first few events (at most 5).' }),
    sent_at: Timestamp,
  })
  .meta({ id: 'AlertWebhook' });
export type AlertWebhookBody = z.infer<typeof AlertWebhookBody>;
