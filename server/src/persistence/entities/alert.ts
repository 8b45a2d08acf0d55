import { defineEntity, p } from '@mikro-orm/core';
import type {
  ALERT_NOTIFICATION_STATES,
  AlertChannelInput,
  AlertFilter,
  AlertThreshold,
  OperatorEventType,
} from '@sched/contract';
import type { z } from 'zod';
import type { RuleState, StoredEvent } from '../../domain/alerts/rules.js';
import { AccountSchema } from './account.js';

/**
 * An alert rule (docs/alerts.md): what to watch and where to tell, and its evaluation state. `channels` holds webhook
 * secrets (they sign each alert); views show only `signed`. `state` is the pure rule state of domain/alerts/rules.ts;
 * `next_alert_at` and `last_alerted_at` repeat what it implies for views and wake-ups.
 */
export const AlertRuleSchema = defineEntity({
  name: 'AlertRule',
  tableName: 'alert_rules',
  indexes: [{ properties: ['account', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    enabled: p.boolean().default(true),
    events: p.json<OperatorEventType[]>(),
    filter: p.json<z.infer<typeof AlertFilter>>().nullable(),
    threshold: p.json<z.infer<typeof AlertThreshold>>().nullable(),
    channels: p.json<AlertChannelInput[]>(),
    groupWait: p.string().length(16).nullable(),
    repeatEvery: p.string().length(16).nullable(),
    lateAfter: p.string().length(16).nullable(),
    state: p.json<RuleState>().nullable(),
    nextAlertAt: p.datetime().nullable(),
    lastAlertedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/**
 * An operator event waiting to be evaluated (app/ports.ts `OperatorEvents`): written in the transaction that caused
 * it, only when the account has a rule watching its type, and deleted by the evaluation that reads it.
 */
export const OperatorEventSchema = defineEntity({
  name: 'OperatorEvent',
  tableName: 'operator_events',
  indexes: [{ properties: ['account', 'at'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    type: p.string().length(48).$type<OperatorEventType>(),
    at: p.datetime(),
    destinationHost: p.string().length(255).nullable(),
    subject: p.json<StoredEvent['subject']>().nullable(),
    details: p.json<Record<string, unknown>>(),
  },
});

/**
 * One alert message on one channel: the outbox of alerts. Written with the rule's new state in one transaction, and
 * its send job with it; sent by the worker (app/alerts/send.ts). `channel` is the rule's channel as it was then
 * (a webhook's secret included); `message` is what the alert reports.
 */
export const AlertNotificationSchema = defineEntity({
  name: 'AlertNotification',
  tableName: 'alert_notifications',
  indexes: [{ properties: ['rule', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    rule: () => p.manyToOne(AlertRuleSchema).deleteRule('cascade'),
    test: p.boolean().default(false),
    channelIndex: p.integer(),
    channel: p.json<AlertChannelInput>(),
    message: p.json<StoredAlert>(),
    status: p.string().length(16).$type<(typeof ALERT_NOTIFICATION_STATES)[number]>(),
    attemptCount: p.integer().default(0),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    sentAt: p.datetime().nullable(),
  },
});

/** What one alert reports, as a notification keeps it. */
export interface StoredAlert {
  rule_name: string;
  count: number;
  first_at: string;
  last_at: string;
  threshold: z.infer<typeof AlertThreshold> | null;
  sample: StoredEvent[];
}
