import { apiContract } from '@sched/contract';
import { Reassignments } from '../app/approvals/reassign.js';
import { ReminderRequests } from '../app/approvals/remind.js';
import { GateTimeouts } from '../app/approvals/timers.js';
import { remindersHandlers } from '../http/handlers/approvals.js';
import { workGateTimers } from '../jobs/gate-timers.js';
import type { Feature } from './feature.js';

/** Approvals in flight (`/v1/approvals`): what is pending, a reminder now, a recipient handed over. */
export const approvalsFeature: Feature = {
  name: 'approvals',
  async routes(_app, http, { ctx, shared }) {
    const { clock } = ctx;
    const store = ctx.db.main;
    await http.contract(
      apiContract.reminders,
      remindersHandlers(
        new ReminderRequests({ store, timers: ctx.gateTimers, clock }),
        new Reassignments({ store, timers: ctx.gateTimers, clock }),
        ctx.actionQueries,
        shared.pendingApprovals,
      ),
    );
  },
  async workers({ ctx, engine, failedJob }) {
    // A gate's timers: reminders, escalation and its timeout, sent as rounds by the delivery engine's approvals.
    const timeouts = new GateTimeouts({
      store: ctx.db.main,
      timers: ctx.gateTimers,
      scheduler: ctx.scheduler,
      callbacks: ctx.callbacks,
      clock: ctx.clock,
      waits: ctx.waits,
      rounds: engine.rounds,
      events: ctx.operatorEvents,
    });
    return [await workGateTimers(ctx.queue, timeouts, failedJob('gate timer'))];
  },
};
