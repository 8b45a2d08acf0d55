import type { ActionCallbackEvent, ActionMode } from '@sched/contract';
import type { ActionEvent } from './states.js';

/**
 * What each event of the state table (states.ts) implies beyond the new state, declared once, beside it: the columns
 * every such change resets, the callback the owner hears, and the fact recorded for alert rules. Applied by
 * app/actions/transition.ts `applyActionEvent`, so a new event gets its callback and its alert by adding a row here.
 *
 * - `next`: `none` clears `next_attempt_at` (nothing more will be attempted), `due` takes the caller's time and
 *   announces it (a retry, the next occurrence, a reschedule), `keep` leaves it.
 * - `error`: `clear` on success, `set` to the change's reason, `keep`.
 * - Every change but the claim (`start`) ends the lease: whoever held the attempt is done with it.
 * - `callback`: the action callback, per mode (an approval's answers are told by `reminder.responded` instead).
 * - `alert`: the operator event alert rules watch (docs/alerts.md).
 */
export interface EventEffects {
  next: 'none' | 'due' | 'keep';
  error: 'clear' | 'set' | 'keep';
  callback?: Partial<
    Record<ActionMode, Extract<ActionCallbackEvent, 'action.executed' | 'action.failed' | 'action.expired'>>
  >;
  alert?: 'action.failed';
}

const FAILED: EventEffects = {
  next: 'none',
  error: 'set',
  callback: { webhook: 'action.failed', approval: 'action.failed' },
  alert: 'action.failed',
};
const TIMED_OUT: EventEffects = { next: 'none', error: 'set', callback: { approval: 'action.expired' } };
// Granted by the timeout: written by the grant (app/approvals/outcomes.ts), told as the timeout it is.
const GRANTED_BY_TIMEOUT: EventEffects = {
  next: 'keep',
  error: 'keep',
  callback: { approval: 'action.expired' },
};

export const EVENT_EFFECTS: Readonly<Record<ActionEvent, EventEffects>> = Object.freeze({
  resolve: { next: 'keep', error: 'keep' },
  start: { next: 'keep', error: 'keep' },
  deliver_succeeded: { next: 'none', error: 'clear', callback: { webhook: 'action.executed' } },
  deliver_failed_permanently: FAILED,
  deliver_failed_retryable: { next: 'due', error: 'set' },
  reminder_delivered: { next: 'keep', error: 'keep' },
  confirm: { next: 'keep', error: 'keep' },
  decline: { next: 'none', error: 'set' },
  snooze: { next: 'due', error: 'keep' },
  timeout_expire: TIMED_OUT,
  timeout_cancel: TIMED_OUT,
  timeout_approve: GRANTED_BY_TIMEOUT,
  cancel: { next: 'none', error: 'keep' },
  manual_retry: { next: 'due', error: 'clear' },
  // A webhook's success moving on to its next occurrence is still its success; a granted approval's round is told
  // by its answers.
  recur: { next: 'due', error: 'clear', callback: { webhook: 'action.executed' } },
  lease_expired: { next: 'due', error: 'set' },
  condition_cancel: { next: 'none', error: 'set' },
  condition_fail: FAILED,
  condition_reschedule: { next: 'due', error: 'set' },
  pause: { next: 'keep', error: 'keep' },
  resume: { next: 'keep', error: 'keep' },
  resume_awaiting: { next: 'keep', error: 'keep' },
  resume_expire: { next: 'none', error: 'keep' },
  threshold_skip: { next: 'due', error: 'set' },
  threshold_blocked: FAILED,
  // Reschedule and run now write their due time themselves (a paused action keeps it without being announced).
  reschedule: { next: 'keep', error: 'keep' },
  run_now: { next: 'keep', error: 'keep' },
});
