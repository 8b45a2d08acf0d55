import { apiContract } from '@sched/contract';
import { Reassignments } from '../app/approvals/reassign.js';
import { ReminderRequests } from '../app/approvals/remind.js';
import { remindersHandlers } from '../http/handlers/approvals.js';
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
};
