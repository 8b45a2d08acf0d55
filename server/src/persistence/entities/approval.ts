import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type {
  AnswerChannel,
  ChatChannelName,
  FieldValue,
  GateChannelName,
  RecipientRole,
  RecipientStatus,
  ReminderEventType,
  TeamMember as TeamMemberDto,
} from '@sched/contract';
import type { ChannelTarget } from '../../domain/approval/messages.js';
import type { ResponseTokenKind } from '../../domain/approval/response-token.js';
import { AccountSchema } from './account.js';
import { ActionSchema } from './action.js';

/** One person or place asked by an approval gate; escalation contacts become recipients too. */
export const RecipientSchema = defineEntity({
  name: 'Recipient',
  tableName: 'recipients',
  indexes: [{ properties: ['action', 'position'] }],
  properties: {
    id: p.uuid().primary(),
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade'),
    position: p.integer(),
    role: p.string().length(16).$type<RecipientRole>(),
    /** What the caller wrote: an email, a phone, `contact:…`, `channel:…` or a team member id. */
    reference: p.string().length(320),
    /** The email address or phone number shown as `email` (or a channel's name). */
    address: p.string().length(320),
    displayName: p.string().length(255),
    /** Resolved channel targets at creation, so later edits of contacts do not redirect a pending request. */
    targets: p.json<ChannelTarget[]>(),
    status: p.string().length(16).$type<RecipientStatus>(),
    respondedAt: p.datetime().nullable(),
    responseComment: p.string().length(500).nullable(),
    /** The recipient this one took over from (a reassignment), which is now `reassigned`; null otherwise. */
    reassignedFrom: p.uuid().nullable(),
    /** The typed answer (`gate.fields`) of a confirm or a decline. */
    values: p.json<Record<string, FieldValue>>().nullable(),
    createdAt: p.datetime(),
  },
});

/** A login-free response link: only the SHA-256 of its token is stored. Each send mints one; all stay valid. */
export const ResponseTokenSchema = defineEntity({
  name: 'ResponseToken',
  tableName: 'response_tokens',
  properties: {
    tokenHash: p.string().length(64).primary(),
    recipient: () => p.manyToOne(RecipientSchema).deleteRule('cascade'),
    /**
     * `link`: the response page's token; `slack`: the reference a Slack app button carries; `reply`: the token of an
     * email's Reply-To address. Only a `link` opens the page: the others answer only through their own channel's
     * checks (a signed Slack click by the right member, a reply from the recipient's address).
     */
    kind: p.string().length(16).$type<ResponseTokenKind>().default('link'),
    createdAt: p.datetime(),
  },
});

/** The approval timeline. */
export const ReminderEventSchema = defineEntity({
  name: 'ReminderEvent',
  tableName: 'reminder_events',
  indexes: [{ properties: ['action', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade'),
    eventType: p.string().length(16).$type<ReminderEventType>(),
    actorEmail: p.string().length(320).nullable(),
    notes: p.text().nullable(),
    /** Where an answer came from; null for other events. */
    channel: p.string().length(16).$type<AnswerChannel>().nullable(),
    createdAt: p.datetime(),
  },
});

/** Files offered with an approval message. */
export const AttachmentSchema = defineEntity({
  name: 'Attachment',
  tableName: 'attachments',
  indexes: [{ properties: ['action'] }],
  properties: {
    id: p.uuid().primary(),
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade'),
    position: p.integer(),
    name: p.string().length(255),
    contentType: p.string().length(255),
    size: p.integer().nullable(),
    // pg reads bytea as a Buffer.
    content: p.blob().$type<Buffer>().nullable(),
    url: p.string().length(2048).nullable(),
  },
});

/** Every message sent (or kept in the outbox) to a recipient, one row per channel. */
export const NotificationSchema = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  indexes: [{ properties: ['action', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade'),
    recipient: () => p.manyToOne(RecipientSchema).deleteRule('cascade'),
    channel: p.string().length(16).$type<GateChannelName>(),
    kind: p.string().length(16),
    ok: p.boolean(),
    via: p.string().length(16),
    providerMessageId: p.string().length(255).nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime(),
  },
});

/** Messages of channels that are not configured, kept for operators (`sched outbox list`). */
export const OutboxMessageSchema = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox_messages',
  // action: an action's delete (retention's, and the cascade) finds its rows without reading the whole table.
  indexes: [{ properties: ['createdAt'] }, { properties: ['action'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade').nullable(),
    action: () => p.manyToOne(ActionSchema).deleteRule('cascade').nullable(),
    channel: p.string().length(16).$type<GateChannelName>(),
    destination: p.string().length(2048),
    rendered: p.text(),
    createdAt: p.datetime(),
  },
});

/** A Slack or Teams incoming webhook, referenced as `channel:<id>`. */
export const NotificationChannelSchema = defineEntity({
  name: 'NotificationChannel',
  tableName: 'notification_channels',
  indexes: [{ properties: ['account', 'name'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    type: p.string().length(16).$type<ChatChannelName>(),
    webhookUrl: p.string().length(2048).nullable(),
    /** Slack app mode: the conversation the bot posts to, instead of a webhook. */
    slackChannelId: p.string().length(32).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type NotificationChannelEntity = InferEntity<typeof NotificationChannelSchema>;

/** A person of the account whose id can be a recipient (email, SMS, Web Push). */
export const TeamMemberSchema = defineEntity({
  name: 'TeamMember',
  tableName: 'team_members',
  indexes: [{ properties: ['account', 'name'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    email: p.string().length(255).nullable(),
    phone: p.string().length(16).nullable(),
    pushSubscriptions: p.json<TeamMemberDto['push_subscriptions']>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type TeamMemberEntity = InferEntity<typeof TeamMemberSchema>;
