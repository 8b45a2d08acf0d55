import { signRequest } from '@sched/contract';
import { classifyAttempt } from '../../domain/delivery/outcome.js';
import {
  CALLBACK_MAX_ATTEMPTS,
  CALLBACK_TIMEOUT_MS,
  callbackRetryDelayMs,
  type RandomSource,
} from '../../domain/delivery/retry-policy.js';
import { findCallback, recordCallbackAttempt } from '../../persistence/callback-deliveries.js';
import type { CountDestination } from '../domains/guard.js';
import type { CallbackQueue, Clock, Outbound, RequestSigning, Store } from '../ports.js';
import type { Waits } from '../waits.js';

/**
 * Delivers one callback attempt: 2xx acknowledges; a permanent answer (4xx other than 429, 3xx, a blocked
 * destination: domain/delivery/outcome.ts) marks it rejected (no retry); anything else is retried, 3 attempts in all
 * (now, +1 min, +5 min), then abandoned. Each callback counts as a send to its host, and is sent even past the
 * host's threshold (the create checked `callback_url`). The action's status never changes here.
 */
export class CallbackDeliveries {
  constructor(
    private readonly deps: {
      store: Store;
      outbox: CallbackQueue;
      /** The destination threshold (app/domains/guard.ts): each callback counts as one send; unset counts nothing. */
      countDestination?: CountDestination | undefined;
      outbound: Outbound;
      waits: Waits;
      clock: Clock;
      /** What signs each callback beside its own secret (a rotation's overlap); its own alone when absent. */
      signing?: RequestSigning | undefined;
      /** The source of the retry waits' jitter (domain/delivery/retry-policy.ts); Math.random when absent. */
      random?: RandomSource;
      /** Each attempt's result ('delivered', 'retry', 'rejected', 'abandoned'), and why one was not delivered. */
      events?: {
        attempted(
          outcome: string,
          failure?: { callbackId: string; event: string; error: string | null },
        ): void;
      };
    },
  ) {}

  async deliver(callbackId: string): Promise<void> {
    const { store, outbound } = this.deps;
    const row = await findCallback(store.sql, callbackId);
    if (row?.status !== 'pending') return;
    const now = this.deps.clock();
    if (row.attempt_count === 0) await this.countSend(row, now);
    const body = JSON.stringify(row.envelope);
    const secrets =
      (await this.deps.signing?.secretsFor(row.account_id, row.webhook_secret).catch(() => undefined)) ??
      (row.webhook_secret ? [row.webhook_secret] : []);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-sched-event': row.event,
      'x-sched-delivery-id': row.id,
      ...(secrets.length > 0
        ? signRequest({
            secret: secrets,
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
    // The delivery outcome rules apply to callbacks too: 2xx acknowledges, a permanent answer (4xx other
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
        const wait = this.deps.waits.wait(callbackRetryDelayMs(attempts, this.deps.random ?? Math.random));
        await this.deps.outbox.redeliver(db, row.id, new Date(now.getTime() + wait));
      }
    });
    this.deps.events?.attempted(
      status === 'pending' ? 'retry' : status,
      status === 'delivered' ? undefined : { callbackId: row.id, event: row.event, error },
    );
  }

  /**
   * Counts a callback's first attempt as one send to its URL's destination, in the counters of whoever made its
   * action or chain; its retries are the same send. It is never refused: the create checked the callback's host,
   * and once an action is accepted every callback it owes is sent. A verified host was read with the row.
   */
  private async countSend(row: NonNullable<Awaited<ReturnType<typeof findCallback>>>, now: Date) {
    const count = this.deps.countDestination;
    if (!count || row.destination_names.length === 0 || row.destination_verified) return;
    await this.deps.store.transaction((db) =>
      count(db, row.account_id, row.url, now, { unverified: true, source: row.created_via, always: true }),
    );
  }
}
