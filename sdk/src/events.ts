import type { ActionCallbackEvent } from '@sched/contract';

/**
 * The callback event names under their legacy SDK names (ActionExecuted, ...), so code written against them keeps working:
 * `if (event.event === ActionExecuted) ...`. The values are the names the service sends.
 */
export const ActionExecuted = 'action.executed' satisfies ActionCallbackEvent;
export const ActionFailed = 'action.failed' satisfies ActionCallbackEvent;
export const ActionExpired = 'action.expired' satisfies ActionCallbackEvent;
export const ReminderResponded = 'reminder.responded' satisfies ActionCallbackEvent;

/** The same names grouped, e.g. `Events.ActionExecuted`. */
export const Events = Object.freeze({
  ActionExecuted,
  ActionFailed,
  ActionExpired,
  ReminderResponded,
} as const);
