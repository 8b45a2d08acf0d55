export type {
  ActionsApi,
  ActionWaitOptions,
  CreateActionResult,
  CreateManyResult,
  ExistingAction,
  HeldWait,
  QuotaApi,
} from './actions.js';
export { FINAL_ACTION_STATES } from './actions.js';
export type {
  AlertRule,
  AlertRuleCreateBody,
  AlertRuleListQuery,
  AlertRulesApi,
  AlertRuleSummary,
  AlertRuleUpdateBody,
  AlertTestResult,
} from './alert-rules.js';
export type { ApiKeysApi, SigningSecretApi } from './api-keys.js';
export type { GrantsApi } from './grants.js';
export type {
  ApprovalAttachment,
  ApprovalHandle,
  ApprovalInput,
  ApprovalsApi,
  ChannelsApi,
  RespondInput,
  TeamMembersApi,
} from './approvals.js';
export type { BulkDryRun, BulkOperation, BulkOperationInput, BulkWaitOptions } from './bulk-operations.js';
export { buildApprovalBody, respond } from './approvals.js';
export type {
  CancelledChainResult,
  Chain,
  ChainCreateBody,
  ChainListQuery,
  ChainStatus,
  ChainStep,
  ChainSummary,
  ChainsApi,
  ChainWaitOptions,
} from './chains.js';
export type {
  Destination,
  DestinationListQuery,
  DestinationRecoverInput,
  DestinationsApi,
  DestinationSummary,
  DestinationUpdate,
  DestinationTestInput,
  DestinationTestResult,
} from './destinations.js';
export { FINAL_CHAIN_STATES } from './chains.js';
export type {
  ClientOptions,
  ContactsApi,
  PendingApprovalsPage,
  PendingApprovalsQuery,
  SchedClient,
} from './client.js';
export type { AuditQuery } from './audit.js';
export type { CalendarListQuery, CalendarsApi } from './calendars.js';
export { createClient, unwrap } from './client.js';
export type { DomainsApi } from './domains.js';
export type { OutboxApi, OutboxMessage, OutboxQuery } from './outbox.js';
export type { TemplateLimitsResult, TemplateListQuery, TemplatesApi } from './templates.js';
export type { CallOptions, RetryOptions, TransportOptions } from './transport.js';
export type { WaitOptions } from './wait.js';
export { SchedWaitTimeoutError } from './wait.js';
export { trigger } from './templates.js';
export { ActionExecuted, ActionExpired, ActionFailed, Events, ReminderResponded } from './events.js';
export { SchedApiError, SchedConnectionError, SchedSignatureError } from './errors.js';
export { collect, paginate, paginatePages } from './pagination.js';
export type { DomainCheck, DomainDetail, DomainSummary, DomainVerification } from '@sched/contract';
export type {
  Calendar,
  CalendarCreate,
  CalendarDays,
  CalendarUpdate,
  DeliveryWindow,
  QuietHours,
  RescheduleBody,
  RunNowBody,
  WindowDeferral,
} from '@sched/contract';
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
  DeliveryAttemptsPage,
  AttemptsQuery,
  FieldValue,
  Gate,
  GateChannel,
  GateField,
  GateInput,
  Grant,
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
export type {
  ActionCallback,
  AnswerChannel,
  ApprovalSummary,
  AuditEvent,
  AuditSettings,
  AuditSettingsUpdate,
  AuditVerification,
  ApiKey,
  ApiKeyCreate,
  ApiKeyRotate,
  ApiKeyRotated,
  ApiKeyScope,
  ApiKeyWithSecret,
  SigningSecret,
  SigningSecretRotate,
  ChainCallback,
  ErrorCode,
  ReassignBody,
  SignatureScheme,
} from '@sched/contract';
export type {
  CallbackEvent,
  CallbackRequest,
  WebhookHeaders,
  WebhookVerification,
  WebhookVerificationInput,
} from './webhooks.js';
export { assertWebhook, parseCallback, verifyWebhook } from './webhooks.js';
