import { type ActionState, CANCELLABLE_STATES, isTerminal } from '../action/states.js';
import type { NotMetPolicy, OnCreateRule, OnExecuteCondition } from '@sched/contract';

/**
 * Dedup keys and the coordination rules (`on_create`, `on_execute`).
 *
 * Glossary:
 * - sharing action: another action of the same account with at least one dedup key in common. Callers find them
 *   (with a lock or constraint, so two racing creates cannot both miss each other); this module only decides.
 * - previous action: a sharing action created before this one (`createdAt` earlier; equal `createdAt` is broken
 *   by the smaller id, so of any two actions exactly one is the other's previous and waits cannot deadlock).
 *   Actions created later never count: an action scheduled in advance must not block today's run.
 */

const MAX_DEDUP_KEYS = 10;
const MAX_DEDUP_KEY_LENGTH = 255;
const KEY_RE = /^[A-Za-z0-9_:.-]+$/;

type FieldErrors = Record<string, string[]>;

/** Field errors keyed `dedup_keys` (the array) and `dedup_keys.<i>` (one key); empty when valid. */
export function validateDedupKeys(keys: unknown): FieldErrors {
  if (keys === undefined || keys === null) return {};
  if (!Array.isArray(keys)) return { dedup_keys: ['Must be an array of strings'] };
  const errors: FieldErrors = {};
  if (keys.length > MAX_DEDUP_KEYS) errors['dedup_keys'] = [`At most ${MAX_DEDUP_KEYS} keys are allowed`];
  keys.forEach((key: unknown, i) => {
    const message =
      typeof key !== 'string'
        ? 'Must be a string'
        : key.length === 0
          ? 'Must not be empty'
          : key.length > MAX_DEDUP_KEY_LENGTH
            ? `At most ${MAX_DEDUP_KEY_LENGTH} characters`
            : KEY_RE.test(key)
              ? null
              : 'Only letters, digits and _ : . - are allowed';
    if (message) errors[`dedup_keys.${i}`] = [message];
  });
  return errors;
}

/** Repeated keys are collapsed (first occurrence kept): they mean the same as one. */
export function normalizeDedupKeys(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}

export const SKIP_REASON = 'existing_action_found';

export type CreateDecision =
  | { kind: 'create' }
  | { kind: 'skip'; existingId: string }
  | { kind: 'replace'; cancelIds: string[] };

/**
 * Rules 1-2 of 4.1 given the sharing actions.
 * - skip_if_exists: when a non-terminal sharing action exists, skip and return it (the most recently created
 *   when `createdAt` is given, else the first listed).
 * - replace_existing (alias cancel_and_replace): cancel every cancellable sharing action, then create. An
 *   `executing` one cannot be cancelled (its request may be on the wire) and is left to finish.
 * - no rule, or nothing to skip or cancel: create.
 */
export function decideOnCreate(
  rule: OnCreateRule | null | undefined,
  existing: readonly { id: string; status: ActionState; createdAt?: Date }[],
): CreateDecision {
  if (rule === 'skip_if_exists') {
    const live = existing.filter((a) => !isTerminal(a.status));
    if (live.length === 0) return { kind: 'create' };
    const newest = live.reduce((best, a) =>
      a.createdAt && best.createdAt && a.createdAt > best.createdAt ? a : best,
    );
    return { kind: 'skip', existingId: newest.id };
  }
  if (rule === 'replace_existing' || rule === 'cancel_and_replace') {
    const cancelIds = existing
      .filter((a) => (CANCELLABLE_STATES as readonly ActionState[]).includes(a.status))
      .map((a) => a.id);
    return cancelIds.length > 0 ? { kind: 'replace', cancelIds } : { kind: 'create' };
  }
  return { kind: 'create' };
}

export interface CoordinatedAction {
  id: string;
  status: ActionState;
  createdAt: Date;
}

const isBefore = (a: { id: string; createdAt: Date }, b: { id: string; createdAt: Date }) =>
  a.createdAt.getTime() < b.createdAt.getTime() ||
  (a.createdAt.getTime() === b.createdAt.getTime() && a.id < b.id);

/**
 * Rules 3-5 of 4.1, evaluated when the action's time arrives, over its previous actions (see the glossary):
 * - skip_if_previous_pending: not met while any previous action is non-terminal.
 * - execute_if_previous_failed / _succeeded: met only when the most recently created previous action is
 *   `failed` / `executed`. A previous action still in flight, cancelled or expired, or no previous action at all,
 *   is "not met" (with on_condition_not_met `reschedule`, an in-flight one is waited for).
 * - wait_for_previous: not met while any previous action is non-terminal; met when there is none.
 */
export function decideOnExecute(
  condition: OnExecuteCondition,
  others: readonly CoordinatedAction[],
  self: { id: string; createdAt: Date },
): 'execute' | 'not_met' {
  const previous = others.filter((a) => a.id !== self.id && isBefore(a, self));
  switch (condition) {
    case 'skip_if_previous_pending':
    case 'wait_for_previous':
      return previous.some((a) => !isTerminal(a.status)) ? 'not_met' : 'execute';
    case 'execute_if_previous_failed':
    case 'execute_if_previous_succeeded': {
      if (previous.length === 0) return 'not_met';
      const latest = previous.reduce((best, a) => (isBefore(best, a) ? a : best));
      const wanted = condition === 'execute_if_previous_failed' ? 'failed' : 'executed';
      return latest.status === wanted ? 'execute' : 'not_met';
    }
  }
}

/**
 * The policy when `on_condition_not_met` is omitted: `reschedule` for wait_for_previous (rule 5 says it
 * reschedules until the previous action is terminal), `cancel` for every other condition.
 */
export function defaultNotMetPolicy(condition: OnExecuteCondition): NotMetPolicy {
  return condition === 'wait_for_previous' ? 'reschedule' : 'cancel';
}

export type NotMetDecision =
  | { kind: 'cancel'; reason: 'condition_not_met' | 'max_reschedules_reached' }
  | { kind: 'fail' }
  | { kind: 'reschedule' };

/**
 * What to do with an action whose condition is not met. A reschedule beyond `max_reschedules` cancels the
 * action (reason `max_reschedules_reached`): the condition never held, which is not a delivery failure, and
 * cancelling fires no `action.failed` callback.
 */
export function onConditionNotMet(
  policy: NotMetPolicy,
  reschedulesDone: number,
  maxReschedules: number,
): NotMetDecision {
  if (policy === 'fail') return { kind: 'fail' };
  if (policy === 'reschedule') {
    return reschedulesDone < maxReschedules
      ? { kind: 'reschedule' }
      : { kind: 'cancel', reason: 'max_reschedules_reached' };
  }
  return { kind: 'cancel', reason: 'condition_not_met' };
}
