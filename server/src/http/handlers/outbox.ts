import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { OutboxService } from '../../app/outbox.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function outboxHandlers(outbox: OutboxService) {
  return s.router(contract.outbox, {
    list: async ({ request, query }) => ({
      status: 200,
      body: { data: await outbox.list(principalOf(request).accountId, query) },
    }),
  });
}
