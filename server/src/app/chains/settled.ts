import { recordStepResponse } from '../../persistence/chains.js';
import type { ActionSettledHook } from '../ports.js';

/** A chain step's whole response body is kept for `{{steps.N.response...}}`, up to this much. */
const CHAIN_RESPONSE_BYTES = 256 * 1024;

/**
 * The chain's side of an action's settlement: a step's HTTP action that succeeds leaves its whole response on the
 * step, in the transaction that marks the action executed. The step itself is marked due by the `chain_step_settled`
 * trigger on `actions` (persistence/entities/action.ts), and the chain worker advances the chain.
 */
export const chainStepSettled: ActionSettledHook = {
  listensTo: (row) => (row.chain_id ? { responseBytes: CHAIN_RESPONSE_BYTES } : null),
  async succeeded(db, row, response) {
    await recordStepResponse(db, row.id, response.body);
  },
};
