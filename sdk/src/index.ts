export type { CreateActionResult, ExistingAction } from './actions.js';
export type { BulkDryRun, BulkOperation, BulkOperationInput, WaitOptions } from './bulk-operations.js';
export type { ApprovalAttachment, ApprovalInput, RespondInput } from './approvals.js';
export { buildApprovalBody, respond } from './approvals.js';
export type {
  CancelledChainResult,
  Chain,
  ChainCreateBody,
  ChainListQuery,
  ChainStatus,
  ChainStep,
  ChainSummary,
} from './chains.js';
export type { ClientOptions, SchedClient } from './client.js';
export type {
  Destination,
  DestinationRecoverInput,
  DestinationSummary,
  DestinationUpdate,
} from './destinations.js';
export { createClient, createRawClient, unwrap } from './client.js';
export type { TemplateListQuery } from './templates.js';
export { trigger } from './templates.js';
export { SchedApiError, SchedConnectionError, SchedSignatureError } from './errors.js';
export { collect, paginate, paginatePages } from './pagination.js';
export type { DomainCheck, DomainDetail, DomainSummary, DomainVerification } from '@sched/contract';
export type {
  DstPolicy,
  PauseBody,
  ResumeBody,
  ScheduleOccurrence,
  SchedulePreview,
  SchedulePreviewBody,
} from '@sched/contract';
export type {
  Action,
  ActionCreateBody,
  ActionListQuery,
  ActionStats,
  ActionStatus,
  ActionSummary,
  Attachment,
  AttachmentInput,
  CancelByKeyResult,
  CancelledAction,
  Contact,
  ContactCreate,
  ContactUpdate,
  Decision,
  DeliveryAttempt,
  Gate,
  GateChannel,
  GateInput,
  HttpRequestInput,
  NotificationChannel,
  NotificationChannelCreate,
  NotificationChannelUpdate,
  Page,
  PaginationMeta,
  PushSubscription,
  Quota,
  Recipient,
  Recurrence,
  ReminderEvent,
  ResponseResult,
  RetriedAction,
  Schedule,
  TeamMember,
  TeamMemberCreate,
  TeamMemberUpdate,
  Template,
  TemplateCreateBody,
  TemplateSummary,
  TemplateUpdateBody,
  TriggerAnswer,
} from './types.js';
export type { ErrorCode, SignatureScheme } from '@sched/contract';
export type { WebhookHeaders, WebhookVerification, WebhookVerificationInput } from './webhooks.js';
export { assertWebhook, verifyWebhook } from './webhooks.js';
