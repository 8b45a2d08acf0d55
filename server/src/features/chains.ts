import { apiContract } from '@sched/contract';
import { chainsHandlers } from '../http/handlers/chains.js';
import type { Feature } from './feature.js';

/** Chains: steps run in order, each an ordinary action (the chain worker is the delivery engine's). */
export const chainsFeature: Feature = {
  name: 'chains',
  async routes(_app, http, { shared }) {
    await http.contract(apiContract.chains, chainsHandlers(shared.chains));
  },
};
