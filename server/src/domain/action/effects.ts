import type { ActionCallbackEvent, ActionMode, ReminderEventType } from '@sched/contract';
import type { ActionEvent } from './states.js';

/**
 * What each event of the state table (states.ts) implies beyond the new state, declared once, beside it: the columns
 * every such change resets, the callback the owner hears, the fact recorded for alert rules, the entry on the
 * action's timeline and the audit event. Applied by app/actions/transition.ts `applyActionEvent`, so a new event gets
 * its callback, its alert, its timeline entry and its audit event by adding a row here.
 *
 * - `next`: `none` clears `next_attempt_at` (nothing more will be attempted), `due` takes the caller's time and
 *   announces it (a retry, the next occurrence, a reschedule; a paused action keeps it unannounced), `keep` leaves it.
 * - `error`: `clear` on success, `set` to the change's reason, `keep`.
 * - `lease`: `take` for the claim (`start`), which puts the attempt in flight under a lease; every other change ends
 *   the lease (whoever held the attempt is done with it).
 * - `callback`: the action callback, per mode (an approval's answers are told by `reminder.responded` instead).
 * - `alert`: the operator event alert rules watch (docs/alerts.md).
 * - `timeline`: the entry on the action's timeline (the interface's `reminder_events`), its notes the caller's.
 * - `audit`: the audit event of a change someone asked for (docs/audit.md); its details default to `from_status`.
 */
export interface EventEffects {
  next: 'none' | 'due' | 'keep';
  error: 'clear' | 'set' | 'keep';
  lease?: 'take';
  callback?: Partial<
    Record<
      ActionMode,
      Extract<
        ActionCallbackEvent,
        'action.executed' | 'action.failed' | 'action.expired' | 'action.paused' | 'action.resumed'
      >
    >
  >;
  alert?: 'action.failed';
  timeline?: Extract<ReminderEventType, 'paused' | 'resumed'>;
  audit?:
    | 'action.cancel'
    | 'action.retry'
    | 'action.pause'
    | 'action.resume'
    | 'action.reschedule'
    | 'action.run';
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

const RESUMED = {
  callback: { webhook: 'action.resumed', approval: 'action.resumed' },
  timeline: 'resumed',
  audit: 'action.resume',
} as const satisfies Partial<EventEffects>;

export const EVENT_EFFECTS: Readonly<Record<ActionEvent, EventEffects>> = Object.freeze({
  resolve: { next: 'keep', error: 'keep' },
  start: { next: 'keep', error: 'keep', lease: 'take' },
  deliver_succeeded: { next: 'none', error: 'clear', callback: { webhook: 'action.executed' } },
  deliver_failed_permanently: FAILED,
  deliver_failed_retryable: { next: 'due', error: 'set' },
  // The round is out: the gate waits for answers, not for a time (its reminders and timeout are timers).
  reminder_delivered: { next: 'none', error: 'keep' },
  confirm: { next: 'keep', error: 'keep' },
  decline: { next: 'none', error: 'set' },
  snooze: { next: 'due', error: 'keep' },
  timeout_expire: TIMED_OUT,
  timeout_cancel: TIMED_OUT,
  timeout_approve: GRANTED_BY_TIMEOUT,
  cancel: { next: 'none', error: 'keep', audit: 'action.cancel' },
  // The chain's cancel is audited as the chain's; its step's action says why it ended.
  chain_cancel: { next: 'none', error: 'set' },
  manual_retry: { next: 'due', error: 'clear', audit: 'action.retry' },
  // A webhook's success moving on to its next occurrence is still its success; a granted approval's round is told
  // by its answers.
  recur: { next: 'due', error: 'clear', callback: { webhook: 'action.executed' } },
  lease_expired: { next: 'due', error: 'set' },
  condition_cancel: { next: 'none', error: 'set' },
  condition_fail: FAILED,
  condition_reschedule: { next: 'due', error: 'set' },
  pause: {
    next: 'keep',
    error: 'keep',
    callback: { webhook: 'action.paused', approval: 'action.paused' },
    timeline: 'paused',
    audit: 'action.pause',
  },
  resume: { next: 'due', error: 'keep', ...RESUMED },
  // A new occurrence after the skipped ones starts clean.
  resume_skip: { next: 'due', error: 'clear', ...RESUMED },
  resume_awaiting: { next: 'none', error: 'keep', ...RESUMED },
  resume_expire: { next: 'none', error: 'set', ...RESUMED },
  threshold_skip: { next: 'due', error: 'set' },
  threshold_blocked: FAILED,
  reschedule: { next: 'due', error: 'keep', audit: 'action.reschedule' },
  run_now: { next: 'due', error: 'keep', audit: 'action.run' },
});
