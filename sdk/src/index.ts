export type { CreateActionResult, ExistingAction } from './actions.js';
export type { ClientOptions, SchedClient } from './client.js';
export { createClient, createRawClient, unwrap } from './client.js';
export { SchedApiError, SchedConnectionError, SchedSignatureError } from './errors.js';
export { collect, paginate, paginatePages } from './pagination.js';
export type {
  Action,
  ActionCreateBody,
  ActionListQuery,
  ActionStatus,
  ActionSummary,
  CancelByKeyResult,
  CancelledAction,
  Contact,
  ContactCreate,
  ContactUpdate,
  DeliveryAttempt,
  Page,
  PaginationMeta,
  Quota,
  Recurrence,
  RetriedAction,
} from './types.js';
export type { WebhookHeaders, WebhookVerification, WebhookVerificationInput } from './webhooks.js';
export { assertWebhook, verifyWebhook } from './webhooks.js';
