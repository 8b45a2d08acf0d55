import { apiContract } from '@sched/contract';
import { ActionMoves } from '../app/actions/reschedule.js';
import { CallbackDeliveries } from '../app/deliveries/callbacks.js';
import { QuotaService } from '../app/quota.js';
import { actionsHandlers, quotaHandlers, schedulesHandlers } from '../http/handlers/actions.js';
import { workCallbacks } from '../jobs/callbacks.js';
import { workResumes } from '../jobs/pause-timers.js';
import type { Feature } from './feature.js';

/** Actions: create, read, cancel, retry, replay, pause, move, wait; the quota they spend; schedule previews. */
export const actionsFeature: Feature = {
  name: 'actions',
  async routes(_app, http, { ctx, shared }) {
    const { config, clock } = ctx;
    const moves = new ActionMoves({
      store: ctx.db.main,
      scheduler: ctx.scheduler,
      callbacks: ctx.callbacks,
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
    await http.contract(
      apiContract.quota,
      quotaHandlers(new QuotaService(ctx.db.main, clock, ctx.actions.lateCounts)),
    );
    await http.contract(apiContract.schedules, schedulesHandlers(clock, shared.calendars));
  },
  async workers({ ctx, outbound, failedJob }) {
    const { metrics, logger } = ctx;
    // The owner's callbacks (actions' and chains'), signed and sent through the SSRF-guarded client.
    const callbacks = new CallbackDeliveries({
      store: ctx.db.firing!,
      outbox: ctx.callbacks,
      countDestination: ctx.countDestination,
      outbound,
      waits: ctx.waits,
      clock: ctx.clock,
      signing: ctx.accounts.signing,
      events: {
        attempted: (outcome, failure) => {
          metrics.callbacks.inc({ outcome });
          if (failure) logger.info({ ...failure, status: outcome }, 'callback not delivered');
        },
      },
    });
    return [
      await workCallbacks(ctx.queue, callbacks, failedJob('callback delivery')),
      await workResumes(ctx.queue, (job) => ctx.pauses.resumeWhenDue(job), failedJob('resume of a pause')),
    ];
  },
};
