import { randomUUID } from 'node:crypto';
import type { CallbackEvent, CallbackOutbox, Clock } from '../app/ports.js';
import type { ActionRow } from '../persistence/actions.js';
import { insertCallback } from '../persistence/callback-deliveries.js';
import type { Sql } from '../persistence/database.js';
import { type JobQueue, QUEUES } from './queue.js';

/** Writes the event to the outbox table and queues its first delivery, in the caller's transaction. */
export function createCallbackOutbox(queue: JobQueue, clock: Clock): CallbackOutbox {
  return {
    async enqueue(
      db: Sql,
      action: Pick<ActionRow, 'id' | 'account_id' | 'name' | 'callback_url'>,
      event: CallbackEvent,
      payload: Record<string, unknown>,
    ) {
      if (!action.callback_url) return;
      const id = randomUUID();
      // `id` is stable across retries of this delivery: receivers deduplicate by it (also sent as webhook-id).
      const envelope = {
        id,
        event,
        action_id: action.id,
        action_name: action.name,
        timestamp: clock().toISOString(),
        payload,
      };
      await insertCallback(db, {
        id,
        accountId: action.account_id,
        actionId: action.id,
        event,
        url: action.callback_url,
        envelope,
        now: clock(),
      });
      await queue.send(QUEUES.callback, { callbackId: id }, { db });
    },
    async redeliver(db, callbackId, at) {
      await queue.send(QUEUES.callback, { callbackId }, { startAfter: at, db });
    },
  };
}
