import { apiContract } from '@sched/contract';
import { AlertEvaluation } from '../app/alerts/evaluate.js';
import { AlertRules } from '../app/alerts/rules.js';
import { AlertSender } from '../app/alerts/send.js';
import { alertRulesHandlers } from '../http/handlers/alert-rules.js';
import { workAlerts } from '../jobs/alerts.js';
import type { Feature } from './feature.js';

/**
 * Alerts: rules over recorded operator events, evaluated as jobs; their messages go through the same adapters and
 * outbox as approval messages (or as signed webhooks through the SSRF-guarded client).
 */
export const alertsFeature: Feature = {
  name: 'alerts',
  async routes(_app, http, { ctx }) {
    const rules = new AlertRules({
      store: ctx.db.main,
      clock: ctx.clock,
      jobs: ctx.alertJobs,
      allowPrivateDestinations: ctx.config.allowPrivateDestinations,
      countDestination: ctx.countDestination,
      rateLimiter: ctx.rateLimiter,
    });
    await http.contract(apiContract.alertRules, alertRulesHandlers(rules));
  },
  async workers({ ctx, outbound, send, failedJob }) {
    const { clock, waits, logger } = ctx;
    const store = ctx.db.main;
    const alerts = {
      evaluation: new AlertEvaluation({ store, clock, waits, jobs: ctx.alertJobs }),
      sender: new AlertSender({
        store,
        clock,
        waits,
        jobs: ctx.alertJobs,
        channels: { send },
        outbound,
        log: logger,
        countDestination: ctx.countDestination,
      }),
    };
    return [await workAlerts(ctx.queue, alerts, failedJob('alert job'))];
  },
};
