import { randomUUID } from 'node:crypto';
import { signRequest } from '@sched/contract';
import type { Logger } from 'pino';
import type { CallbackEvent, CallbackOutbox, Clock, Store, TxSql } from '../app/ports.js';
import type { Waits } from '../app/waits.js';
import { classifyAttempt } from '../domain/delivery/outcome.js';
import { CALLBACK_MAX_ATTEMPTS, EXPONENTIAL_WAITS_MS } from '../domain/delivery/retry-policy.js';
import type { Metrics } from '../metrics.js';
import type { OutboundClient } from '../outbound/http-client.js';
import type { ActionRow } from '../persistence/actions.js';
import { findCallback, insertCallback, recordCallbackAttempt } from '../persistence/callback-deliveries.js';
import { typedOf } from '../persistence/db.js';
import { type JobQueue, QUEUES } from './queue.js';

export const CALLBACK_TIMEOUT_MS = 30_000;

/** Writes the event to the outbox table and queues its first delivery, in the caller's transaction. */
export function createCallbackOutbox(queue: JobQueue, clock: Clock): CallbackOutbox {
  return {
    async enqueue(
      tx: TxSql,
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
      const db = typedOf(tx);
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
  };
}

/**
 * Delivers one callback attempt (spec 6): 2xx acknowledges; 4xx other than 408 and 429 marks it rejected (no
 * retry); anything else is retried, 3 attempts in all (now, +1 min, +5 min), then abandoned. The action's status
 * never changes here.
 */
export class CallbackDeliverer {
  constructor(
    private readonly deps: {
      store: Store;
      queue: JobQueue;
      outbound: OutboundClient;
      waits: Waits;
      metrics: Metrics;
      logger: Logger;
      clock: Clock;
    },
  ) {}

  async deliver(callbackId: string): Promise<void> {
    const { store, outbound, metrics } = this.deps;
    const row = await findCallback(store.sql, callbackId);
    if (row?.status !== 'pending') return;
    const body = JSON.stringify(row.envelope);
    const now = this.deps.clock();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-sched-event': row.event,
      'x-sched-delivery-id': row.id,
      ...(row.webhook_secret
        ? signRequest({
            secret: row.webhook_secret,
            messageId: row.id,
            timestamp: Math.floor(now.getTime() / 1000),
            body,
          })
        : {}),
    };
    const result = await outbound.send({
      url: row.url,
      method: 'POST',
      headers,
      body,
      timeoutMs: CALLBACK_TIMEOUT_MS,
      maxResponseBytes: 1024,
    });
    const attempts = row.attempt_count + 1;
    // The delivery outcome rules of spec 7 apply to callbacks too: 2xx acknowledges, a permanent answer (4xx other
    // than 429, 3xx, a blocked destination) marks the callback rejected, anything else is retried.
    const outcome = classifyAttempt(
      result.kind === 'response' ? { kind: 'response', status: result.status } : result,
    );
    const status: 'delivered' | 'rejected' | 'pending' | 'abandoned' =
      outcome === 'success'
        ? 'delivered'
        : outcome === 'permanent'
          ? 'rejected'
          : attempts < CALLBACK_MAX_ATTEMPTS
            ? 'pending'
            : 'abandoned';
    const error =
      result.kind === 'response' ? (status === 'delivered' ? null : `HTTP ${result.status}`) : result.message;
    await store.transaction(async (db) => {
      const statusCode = result.kind === 'response' ? result.status : null;
      await recordCallbackAttempt(db, {
        id: row.id,
        status,
        attempts,
        statusCode,
        error,
        now: this.deps.clock(),
      });
      if (status === 'pending') {
        const wait = this.deps.waits.wait(
          EXPONENTIAL_WAITS_MS[attempts] ?? EXPONENTIAL_WAITS_MS[EXPONENTIAL_WAITS_MS.length - 1]!,
        );
        await this.deps.queue.send(
          QUEUES.callback,
          { callbackId: row.id },
          { startAfter: new Date(now.getTime() + wait), db },
        );
      }
    });
    metrics.callbacks.inc({ outcome: status === 'pending' ? 'retry' : status });
    if (status !== 'delivered')
      this.deps.logger.info(
        { callbackId: row.id, event: row.event, status, error },
        'callback not delivered',
      );
  }
}
