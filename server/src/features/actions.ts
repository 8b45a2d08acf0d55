import { apiContract } from '@sched/contract';
import {
  FAILED_INBOX_FOLD_MS,
  FAILED_INBOX_IDLE_FOLD_MS,
  FailedInboxFold,
} from '../app/actions/failed-inbox.js';
import { ActionMoves } from '../app/actions/reschedule.js';
import { CallbackDeliveries } from '../app/deliveries/callbacks.js';
import { QuotaService } from '../app/quota.js';
import { actionsHandlers, quotaHandlers, schedulesHandlers } from '../http/handlers/actions.js';
import { workCallbacks } from '../jobs/callbacks.js';
import { workResumes } from '../jobs/pause-timers.js';
import { PeriodicLoop } from '../jobs/periodic.js';
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
    // The failed inbox's kept total: its deltas folded into each account's base.
    const inbox = new FailedInboxFold(ctx.db.main);
    const fold = new PeriodicLoop({
      run: () => inbox.fold(),
      what: 'the failed inbox fold',
      intervalMs: ctx.waits.wait(FAILED_INBOX_FOLD_MS, 100),
      idle: (accounts) => accounts === 0,
      idleIntervalMs: ctx.waits.wait(FAILED_INBOX_IDLE_FOLD_MS, 100),
      logger,
      timers: ctx.timers,
      availability: ctx.db.availability,
    });
    fold.start();
    return [
      await workCallbacks(ctx.queue, callbacks, failedJob('callback delivery')),
      await workResumes(ctx.queue, (job) => ctx.pauses.resumeWhenDue(job), failedJob('resume of a pause')),
      { stop: () => fold.stop() },
    ];
  },
};
