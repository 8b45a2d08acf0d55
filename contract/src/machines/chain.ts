import type { ChainState } from '../schemas/chain.js';

// Where a chain's life ends and where `DELETE /v1/chains/{id}` applies. The server's chain table
// (server/src/domain/chain/states.ts) has a `cancel` row from each cancellable state and no way out of a terminal one
// (its tests hold the two together); the console offers its Cancel button by the same list.

export const CHAIN_TERMINAL_STATES = Object.freeze([
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly ChainState[]);
export const CHAIN_CANCELLABLE_STATES = Object.freeze([
  'pending',
  'running',
] as const satisfies readonly ChainState[]);

export function isChainTerminal(state: ChainState): boolean {
  return (CHAIN_TERMINAL_STATES as readonly ChainState[]).includes(state);
}

export function isChainCancellable(state: ChainState): boolean {
  return (CHAIN_CANCELLABLE_STATES as readonly ChainState[]).includes(state);
}
