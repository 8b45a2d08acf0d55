import type { Chain, ChainContext, ChainStepView, ChainSummary } from '@sched/contract';
import { stepResponse } from '../../domain/chain/resolve.js';
import type { ChainRow, ChainStepRow } from '../../persistence/chains.js';
import { shownText, shownUrl } from '../../domain/auth/api-key.js';

/** `context.steps`: the outcome and response of every settled step, keyed by index (what expressions read). */
export function chainContext(steps: readonly ChainStepRow[]): ChainContext {
  const context: ChainContext = { steps: {} };
  for (const s of steps) {
    if (s.outcome !== null)
      context.steps[String(s.index)] = { status: s.outcome, response: stepResponse(s.response) };
  }
  return context;
}

function stepView(s: ChainStepRow, credentials: boolean): ChainStepView {
  return {
    index: s.index,
    name: s.name,
    type: s.type,
    status: s.status,
    outcome: s.outcome,
    condition: s.definition.condition ?? null,
    error: shownText(s.error, credentials),
    started_at: s.started_at?.toISOString() ?? null,
    completed_at: s.completed_at?.toISOString() ?? null,
    action_id: s.action_id,
  };
}

export function chainView(chain: ChainRow, steps: readonly ChainStepRow[], credentials = true): Chain {
  return {
    id: chain.id,
    name: chain.name,
    status: chain.status,
    current_step: chain.current_step,
    steps: steps.map((s) => stepView(s, credentials)),
    context: chainContext(steps),
    input: chain.input,
    error_handling: chain.error_handling,
    callback_url: chain.callback_url === null ? null : shownUrl(chain.callback_url, credentials),
    created_at: chain.created_at.toISOString(),
    updated_at: chain.updated_at.toISOString(),
    completed_at: chain.completed_at?.toISOString() ?? null,
  };
}

export function chainSummary(chain: ChainRow): ChainSummary {
  return {
    id: chain.id,
    name: chain.name,
    status: chain.status,
    current_step: chain.current_step,
    created_at: chain.created_at.toISOString(),
  };
}
