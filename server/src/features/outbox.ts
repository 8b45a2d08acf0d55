import { apiContract } from '@sched/contract';
import { OutboxService } from '../app/outbox.js';
import { outboxHandlers } from '../http/handlers/outbox.js';
import type { Feature } from './feature.js';

/** The development outbox: messages a channel without settings recorded instead of sending (admin scope). */
export const outboxFeature: Feature = {
  name: 'outbox',
  async routes(_app, http, { ctx }) {
    const outbox = new OutboxService(ctx.db.main, ctx.config.env !== 'production');
    await http.contract(apiContract.outbox, outboxHandlers(outbox));
  },
};
