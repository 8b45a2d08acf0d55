import { apiContract } from '@sched/contract';
import { ActionMoves } from '../app/actions/reschedule.js';
import { QuotaService } from '../app/quota.js';
import { actionsHandlers, quotaHandlers, schedulesHandlers } from '../http/handlers/actions.js';
import type { Feature } from './feature.js';

/** Actions: create, read, cancel, retry, replay, pause, move, wait; the quota they spend; schedule previews. */
export const actionsFeature: Feature = {
  name: 'actions',
  async routes(_app, http, { ctx, shared }) {
    const { config, clock } = ctx;
    const moves = new ActionMoves({
      store: ctx.db.main,
      scheduler: ctx.scheduler,
      clock,
      allowPrivateDestinations: config.allowPrivateDestinations,
    });
    await http.contract(
      apiContract.actions,
      actionsHandlers(
        ctx.actions,
        ctx.actionQueries,
        ctx.actionChanges,
        ctx.pauses,
        ctx.replays,
        { limiter: ctx.rateLimiter, factor: config.rateLimitFactor },
        moves,
        shared.actionWaits,
      ),
    );
    await http.contract(apiContract.quota, quotaHandlers(new QuotaService(ctx.db.main, clock)));
    await http.contract(apiContract.schedules, schedulesHandlers(clock, shared.calendars));
  },
};
