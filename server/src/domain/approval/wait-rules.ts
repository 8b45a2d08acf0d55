import { type ActionState, type AgentDecision, decisionOfState } from '@sched/contract';
import { isTerminal } from '../action/states.js';

export type { AgentDecision };

/** An approval's decision from its state (the contract's reading, which the MCP tools answer too). */
export const decisionOf = (status: ActionState): AgentDecision | null => decisionOfState(status);

/** What a held `wait` waits for: the gate's decision (a webhook has none: its end), or the action's end. */
export type WaitFor = 'decision' | 'terminal';

/** Whether a held `wait` may answer: the moment it waits for has come. */
export function waitIsOver(status: ActionState, hasGate: boolean, waitFor: WaitFor): boolean {
  if (waitFor === 'decision' && hasGate) return decisionOf(status) !== null;
  return isTerminal(status);
}
