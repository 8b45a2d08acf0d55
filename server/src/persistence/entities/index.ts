import { AccountSchema, ApiKeySchema, ConsoleSessionSchema } from './account.js';
import { ActionSchema, CallbackDeliverySchema, DeliveryAttemptSchema, UsageCounterSchema } from './action.js';
import {
  AttachmentSchema,
  NotificationChannelSchema,
  NotificationSchema,
  OutboxMessageSchema,
  RecipientSchema,
  ReminderEventSchema,
  ResponseTokenSchema,
  TeamMemberSchema,
} from './approval.js';
import { AuditEventSchema, AuditHeadSchema } from './audit.js';
import { ChainSchema, ChainStepSchema } from './chain.js';
import { ContactSchema } from './contact.js';
import { DomainSchema } from './domain.js';
import { RateLimitWindowSchema } from './rate-limit.js';
import { TemplateSchema } from './template.js';

export * from './account.js';
export * from './action.js';
export * from './approval.js';
export * from './audit.js';
export * from './chain.js';
export * from './contact.js';
export * from './domain.js';
export * from './rate-limit.js';
export * from './template.js';

/** Every entity the ORM knows; migrations must match them (a test diffs the schema). */
export const entities = [
  AccountSchema,
  ApiKeySchema,
  ContactSchema,
  RateLimitWindowSchema,
  ActionSchema,
  DeliveryAttemptSchema,
  CallbackDeliverySchema,
  UsageCounterSchema,
  RecipientSchema,
  ResponseTokenSchema,
  ReminderEventSchema,
  AttachmentSchema,
  NotificationSchema,
  OutboxMessageSchema,
  NotificationChannelSchema,
  TeamMemberSchema,
  ChainSchema,
  ChainStepSchema,
  TemplateSchema,
  DomainSchema,
  ConsoleSessionSchema,
  AuditEventSchema,
  AuditHeadSchema,
];
