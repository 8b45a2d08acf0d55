import type { BulkOperationKind } from '@sched/contract';
import {
  ACTION_TRANSITIONS,
  type ActionState,
  CANCELLABLE_STATES,
  PAUSABLE_STATES,
  RESCHEDULABLE_STATES,
  RUNNABLE_STATES,
  TERMINAL_STATES,
} from './states.js';

/**
 * Which actions each bulk operation changes, derived from the state table so a bulk operation and the
 * single-action endpoint always agree: `cancel` where `DELETE /actions/{id}` cancels, `retry` where
 * `POST /actions/{id}/retry` retries (a failed action with a request), `replay` on a final action, `pause` and
 * `resume` where the single-action endpoints do. Everything else
 * matched is skipped and counted by its status.
 */
export interface BulkEligibility {
  states: readonly ActionState[];
  /** Whether the action must carry an HTTP request (a retry sends it again). */
  needsRequest: boolean;
}

const fromStates = (event: string) =>
  Object.freeze([...new Set(ACTION_TRANSITIONS.filter((t) => t.event === event).map((t) => t.from))]);
const RETRYABLE_STATES = fromStates('manual_retry');
const RESUMABLE_STATES = fromStates('resume');

const ELIGIBILITY: Readonly<Record<BulkOperationKind, BulkEligibility>> = Object.freeze({
  cancel: { states: CANCELLABLE_STATES, needsRequest: false },
  retry: { states: RETRYABLE_STATES, needsRequest: true },
  replay: { states: TERMINAL_STATES, needsRequest: false },
  pause: { states: PAUSABLE_STATES, needsRequest: false },
  resume: { states: RESUMABLE_STATES, needsRequest: false },
  reschedule: { states: RESCHEDULABLE_STATES, needsRequest: false },
  run: { states: RUNNABLE_STATES, needsRequest: true },
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
