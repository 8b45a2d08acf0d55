import { randomUUID } from 'node:crypto';
import type { ChainCallbacks } from '../app/chains/advance.js';
import type { Clock } from '../app/ports.js';
import { insertCallback } from '../persistence/callback-deliveries.js';
import { type JobQueue, QUEUES } from './queue.js';

/**
 * Chain events through the callback outbox of actions: the same table, job, signing (with the chain's
 * webhook_secret) and retry rules; only the envelope names the chain instead of an action.
 */
export function createChainCallbackOutbox(queue: JobQueue, clock: Clock): ChainCallbacks {
  return {
    async enqueue(db, chain, event, payload) {
      if (!chain.callback_url) return;
      const id = randomUUID();
      const now = clock();
      const envelope = {
        id,
        event,
        chain_id: chain.id,
        chain_name: chain.name,
        timestamp: now.toISOString(),
        payload,
      };
      await insertCallback(db, {
        id,
        accountId: chain.account_id,
        chainId: chain.id,
        event,
        url: chain.callback_url,
        envelope,
        now,
      });
      await queue.send(QUEUES.callback, { callbackId: id }, { db });
    },
  };
}
