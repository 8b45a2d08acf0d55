import { AccountSchema, ApiKeySchema, ConsoleSessionSchema } from './account.js';
import { AlertNotificationSchema, AlertRuleSchema, OperatorEventSchema } from './alert.js';
import {
  ActionSchema,
  BulkOperationItemSchema,
  BulkOperationSchema,
  CallbackDeliverySchema,
  DeliveryAttemptSchema,
  UsageCounterSchema,
} from './action.js';
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
import { CalendarSchema } from './calendar.js';
import { AuditEventSchema, AuditHeadSchema, AuditPendingSchema, auditRoutines } from './audit.js';
import { ChainSchema, ChainStepSchema } from './chain.js';
import { ContactSchema } from './contact.js';
import { ActionOriginSchema, DestinationSchema } from './destination.js';
import { DomainSchema } from './domain.js';
import { FailedInboxCountSchema, FailedInboxDeltaSchema } from './failed-inbox.js';
import { GrantSchema } from './grant.js';
import { InboundReplySchema } from './inbound.js';
import { AccountWriteSchema, RateLimitWindowSchema } from './rate-limit.js';
import { TemplateSchema } from './template.js';

export * from './account.js';
export * from './action.js';
export * from './alert.js';
export * from './approval.js';
export * from './audit.js';
export * from './calendar.js';
export * from './chain.js';
export * from './contact.js';
export * from './destination.js';
export * from './domain.js';
export * from './failed-inbox.js';
export * from './grant.js';
export * from './inbound.js';
export * from './rate-limit.js';
export * from './template.js';

/** Every entity's schema type, named so the declaration of `entities` stays small. */
export type EntitySchemaOf =
  | typeof AccountSchema
  | typeof ApiKeySchema
  | typeof ContactSchema
  | typeof RateLimitWindowSchema
  | typeof AccountWriteSchema
  | typeof ActionSchema
  | typeof DeliveryAttemptSchema
  | typeof CallbackDeliverySchema
  | typeof UsageCounterSchema
  | typeof RecipientSchema
  | typeof ResponseTokenSchema
  | typeof ReminderEventSchema
  | typeof AttachmentSchema
  | typeof NotificationSchema
  | typeof OutboxMessageSchema
  | typeof NotificationChannelSchema
  | typeof TeamMemberSchema
  | typeof ChainSchema
  | typeof ChainStepSchema
  | typeof TemplateSchema
  | typeof DomainSchema
  | typeof ConsoleSessionSchema
  | typeof AuditEventSchema
  | typeof AuditHeadSchema
  | typeof AuditPendingSchema
  | typeof BulkOperationSchema
  | typeof BulkOperationItemSchema
  | typeof DestinationSchema
  | typeof ActionOriginSchema
  | typeof AlertRuleSchema
  | typeof OperatorEventSchema
  | typeof AlertNotificationSchema
  | typeof CalendarSchema
  | typeof GrantSchema
  | typeof InboundReplySchema
  | typeof FailedInboxCountSchema
  | typeof FailedInboxDeltaSchema;

/** Every entity the ORM knows; migrations must match them (a test diffs the schema). */
export const entities: EntitySchemaOf[] = [
  AccountSchema,
  ApiKeySchema,
  ContactSchema,
  RateLimitWindowSchema,
  AccountWriteSchema,
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
  AuditPendingSchema,
  BulkOperationSchema,
  BulkOperationItemSchema,
  DestinationSchema,
  ActionOriginSchema,
  AlertRuleSchema,
  OperatorEventSchema,
  AlertNotificationSchema,
  CalendarSchema,
  GrantSchema,
  InboundReplySchema,
  FailedInboxCountSchema,
  FailedInboxDeltaSchema,
];

/** Every database function the ORM knows (MikroORM routines); the same test diffs them against the migrations. */
export const routines = [...auditRoutines];
