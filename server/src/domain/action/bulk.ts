import type { BulkOperationKind } from '@sched/contract';
import { ACTION_TRANSITIONS, type ActionState, CANCELLABLE_STATES, TERMINAL_STATES } from './states.js';

/**
 * Which actions each bulk operation changes (issue 23), derived from the state table so a bulk operation and the
 * single-action endpoint always agree: `cancel` where `DELETE /actions/{id}` cancels, `retry` where
 * `POST /actions/{id}/retry` retries (a failed action with a request), `replay` on a final action. Everything else
 * matched is skipped and counted by its status.
 */
export interface BulkEligibility {
  states: readonly ActionState[];
  /** Whether the action must carry an HTTP request (a retry sends it again). */
  needsRequest: boolean;
}

const RETRYABLE_STATES = Object.freeze(
  ACTION_TRANSITIONS.filter((t) => t.event === 'manual_retry').map((t) => t.from),
);

/** The operations this build can run; pause and resume join when their use case exists (docs/operations.md). */
export const AVAILABLE_BULK_OPERATIONS: readonly BulkOperationKind[] = Object.freeze([
  'cancel',
  'retry',
  'replay',
]);

const ELIGIBILITY: Readonly<Record<BulkOperationKind, BulkEligibility>> = Object.freeze({
  cancel: { states: CANCELLABLE_STATES, needsRequest: false },
  retry: { states: RETRYABLE_STATES, needsRequest: true },
  replay: { states: TERMINAL_STATES, needsRequest: false },
  pause: { states: [], needsRequest: false },
  resume: { states: [], needsRequest: false },
});

export function bulkEligibility(operation: BulkOperationKind): BulkEligibility {
  return ELIGIBILITY[operation];
}

export function isBulkEligible(
  operation: BulkOperationKind,
  action: { status: ActionState; hasRequest: boolean },
): boolean {
  const e = ELIGIBILITY[operation];
  return e.states.includes(action.status) && (!e.needsRequest || action.hasRequest);
}

/** Counts of a dry run: per status and request presence in, eligible and the ineligible per status out. */
export function tallyEligibility(
  operation: BulkOperationKind,
  groups: readonly { status: ActionState; hasRequest: boolean; count: number }[],
): { matched: number; eligible: number; ineligible: Partial<Record<ActionState, number>> } {
  let matched = 0;
  let eligible = 0;
  const ineligible: Partial<Record<ActionState, number>> = {};
  for (const g of groups) {
    matched += g.count;
    if (isBulkEligible(operation, g)) eligible += g.count;
    else ineligible[g.status] = (ineligible[g.status] ?? 0) + g.count;
  }
  return { matched, eligible, ineligible };
}
