import { apiContract } from '@sched/contract';
import { chainsHandlers } from '../http/handlers/chains.js';
import { ChainWorker } from '../jobs/chain-worker.js';
import type { Feature } from './feature.js';

/** Chains: steps run in order, each an ordinary action; the chain worker advances them as their actions settle. */
export const chainsFeature: Feature = {
  name: 'chains',
  async routes(_app, http, { shared }) {
    await http.contract(apiContract.chains, chainsHandlers(shared.chains));
  },
  async workers({ ctx, engine }) {
    const firing = ctx.db.firing!;
    const chainWorker = new ChainWorker({
      timers: ctx.timers,
      store: firing,
      engine: ctx.chainEngine(firing),
      clock: ctx.clock,
      logger: ctx.logger,
      notifications: engine.notifications,
      availability: ctx.db.availability,
    });
    await chainWorker.start();
    return [{ stop: () => chainWorker.stop(), stopFirst: true }];
  },
};
