import type { ActionState } from '@sched/contract';
import { isTerminal } from '../action/states.js';

/** How a gate ended, as an agent reads it: null while nobody has decided yet. */
export type AgentDecision = 'confirmed' | 'declined' | 'expired' | 'cancelled';

/**
 * An approval's decision from its state: a confirm (or `on_timeout: approve`) executes it, a decline fails it, a
 * timeout expires or cancels it. Anything live is undecided, a snoozed request included.
 */
export function decisionOf(status: ActionState): AgentDecision | null {
  switch (status) {
    case 'executed':
      return 'confirmed';
    case 'failed':
      return 'declined';
    case 'expired':
      return 'expired';
    case 'cancelled':
      return 'cancelled';
    default:
      return null;
  }
}

/** What a held `wait` waits for: the gate's decision (a webhook has none: its end), or the action's end. */
export type WaitFor = 'decision' | 'terminal';

/** Whether a held `wait` may answer: the moment it waits for has come. */
export function waitIsOver(status: ActionState, hasGate: boolean, waitFor: WaitFor): boolean {
  if (waitFor === 'decision' && hasGate) return decisionOf(status) !== null;
  return isTerminal(status);
}
