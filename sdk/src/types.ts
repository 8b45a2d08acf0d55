import type {
  ActionListQuery as ActionListQuerySchema,
  ActionStatus as ActionStatusSchema,
  CancelByKeyResult as CancelByKeyResultSchema,
  CancelledAction as CancelledActionSchema,
  DeliveryAttempt as DeliveryAttemptSchema,
  PaginationMeta as PaginationMetaSchema,
  Recurrence as RecurrenceSchema,
  RetriedAction as RetriedActionSchema,
} from '@sched/contract';
import type { z } from 'zod';

/*
 * Glossary of the types the SDK answers with. Resources keep the API's snake_case field names, so what the SDK
 * returns is exactly what `GET /v1/actions/{id}` shows and the docs describe.
 */

export type {
  Action,
  ActionCreateBody,
  ActionCreateParsed,
  ActionSummary,
  Contact,
  ContactCreate,
  ContactUpdate,
  Quota,
} from '@sched/contract';

/** One of the action states of spec 3.1. */
export type ActionStatus = z.infer<typeof ActionStatusSchema>;
/** One delivery attempt of an action: when it was due, when it started and how late (`lateness_ms`). */
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;
/** `recurrence` (alias `repeat`) of an action. */
export type Recurrence = z.infer<typeof RecurrenceSchema>;
/** `{ current_page, last_page, total, per_page }` of every list answer. */
export type PaginationMeta = z.infer<typeof PaginationMetaSchema>;
/** The answer of a cancel by id or by idempotency key. */
export type CancelledAction = z.infer<typeof CancelledActionSchema>;
/** The answer of `DELETE /actions/by-coordination-key`. */
export type CancelByKeyResult = z.infer<typeof CancelByKeyResultSchema>;
/** The answer of `POST /actions/{id}/retry`. */
export type RetriedAction = z.infer<typeof RetriedActionSchema>;

/** Filters of `GET /actions`. `page` starts at 1; `per_page` is 1-100 (default 25). */
export type ActionListQuery = Omit<z.input<typeof ActionListQuerySchema>, 'page' | 'per_page'> & {
  page?: number;
  per_page?: number;
};

/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  meta: PaginationMeta;
}
