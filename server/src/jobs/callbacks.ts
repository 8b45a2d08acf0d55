import { randomUUID } from 'node:crypto';
import type { CallbackDeliveries } from '../app/deliveries/callbacks.js';
import type { CallbackQueue, ChainCallbacks, Clock } from '../app/ports.js';
import { insertCallback } from '../persistence/callback-deliveries.js';
import type { Sql } from '../persistence/database.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** What a callback is about: an action (action.* and reminder.* events) or a chain (chain.* events). */
type Subject =
  | { kind: 'action'; id: string; account_id: string; name: string; callback_url: string | null }
  | { kind: 'chain'; id: string; account_id: string; name: string; callback_url: string | null };

/**
 * The callback queue, for actions and chains alike (written in the caller's transaction: the outbox pattern, not the
 * store of unsent messages `GET /v1/outbox` lists): the event goes to `callback_deliveries` and its first delivery
 * is queued, in the caller's transaction; the same table, job, signing and retry rules serve both, and only the
 * envelope names its subject. `id` is stable across retries of this delivery: receivers deduplicate by it (it is
 * also sent as webhook-id).
 */
export function createCallbackQueue(
  queue: JobQueue,
  clock: Clock,
): { actions: CallbackQueue; chains: ChainCallbacks } {
  async function enqueue(db: Sql, subject: Subject, event: string, payload: Record<string, unknown>) {
    if (!subject.callback_url) return;
    const id = randomUUID();
    const now = clock();
    const named =
      subject.kind === 'action'
        ? { action_id: subject.id, action_name: subject.name }
        : { chain_id: subject.id, chain_name: subject.name };
    await insertCallback(db, {
      id,
      accountId: subject.account_id,
      ...(subject.kind === 'action' ? { actionId: subject.id } : { chainId: subject.id }),
      event,
      url: subject.callback_url,
      envelope: { id, event, ...named, timestamp: now.toISOString(), payload },
      now,
    });
    await queue.send(QUEUES.callback, { callbackId: id }, { db });
  }
  return {
    actions: {
      enqueue: (db, action, event, payload) => enqueue(db, { kind: 'action', ...action }, event, payload),
      async redeliver(db, callbackId, at) {
        await queue.send(QUEUES.callback, { callbackId }, { startAfter: at, db });
      },
    },
    chains: {
      enqueue: (db, chain, event, payload) => enqueue(db, { kind: 'chain', ...chain }, event, payload),
    },
  };
}

/** The worker of `callback` jobs: each delivers one attempt (app/deliveries/callbacks.ts). */
export function workCallbacks(
  queue: JobQueue,
  callbacks: CallbackDeliveries,
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.callback,
    {
      batchSize: 20,
      pollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
    },
    (job) => callbacks.deliver(job.callbackId),
    failed,
  );
}
