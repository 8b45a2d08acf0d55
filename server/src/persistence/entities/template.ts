import { defineEntity, p } from '@mikro-orm/core';
import type {
  DeliveryWindow,
  ActionMode,
  ChainStepParsed,
  ErrorHandling,
  GateInput,
  PlaceholderDefinition,
  RetryStrategy,
  TemplateType,
} from '@sched/contract';
import { AccountSchema } from './account.js';
import type { StoredRequest } from './stored.js';

/**
 * A template: a saved action or chain with `{{placeholders}}`, fired through `POST /t/<token>`. Only the
 * SHA-256 of the trigger token is kept (`token_hash`, looked up by equality); `token_prefix` lets a person tell
 * URLs apart in masked views.
 */
export const TemplateSchema = defineEntity({
  name: 'Template',
  tableName: 'templates',
  indexes: [{ properties: ['account', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    description: p.text().nullable(),
    type: p.string().length(16).$type<TemplateType>(),
    mode: p.string().length(16).$type<ActionMode>().nullable(),
    timezone: p.string().length(64),
    requestConfig: p.json<StoredRequest>().nullable(),
    /** Origins a URL whose scheme or host holds a placeholder may resolve to: values never move a request elsewhere. */
    allowedOrigins: p.array().default([]),
    gateConfig: p.json<GateInput>().nullable(),
    maxAttempts: p.integer().nullable(),
    retryStrategy: p.string().length(16).$type<RetryStrategy>().nullable(),
    webhookSecret: p.string().length(255).nullable(),
    callbackUrl: p.string().length(2048).nullable(),
    chainSteps: p.json<ChainStepParsed[]>().nullable(),
    chainErrorHandling: p.string().length(16).$type<ErrorHandling>().nullable(),
    placeholders: p.json<PlaceholderDefinition[]>(),
    dedupKeys: p.array().default([]),
    /** Trigger caps the owner sets, so a trigger URL cannot spend the owner's allowances; null: the documented default. */
    triggerLimitPerHour: p.integer().nullable(),
    triggerLimitPerDay: p.integer().nullable(),
    /** How far ahead (days) an anonymous trigger may schedule; null: the documented default. */
    maxScheduleDays: p.integer().nullable(),
    /** The delivery window of the actions its triggers make; null: none. */
    deliveryWindow: p.json<DeliveryWindow>().nullable(),
    tokenHash: p.string().length(64).unique(),
    tokenPrefix: p.string().length(16),
    isActive: p.boolean().default(true),
    triggerCount: p.integer().default(0),
    failedTriggerCount: p.integer().default(0),
    lastTriggeredAt: p.datetime().nullable(),
    lastFailedAt: p.datetime().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
