import type { AlertEvaluation } from '../app/alerts/evaluate.js';
import type { AlertSender } from '../app/alerts/send.js';
import type { AlertJobs, OperatorEvents } from '../app/ports.js';
import { insertOperatorEvent } from '../persistence/alerts.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** The `AlertJobs` port: evaluations and sends as jobs of the `alerts` queue, written in the caller's transaction. */
export function createAlertJobs(queue: JobQueue): AlertJobs {
  return {
    async evaluate(tx, accountId, at) {
      await queue.send(
        QUEUES.alerts,
        { kind: 'evaluate', accountId, ...(at ? { wakeAt: at.toISOString() } : {}) },
        { db: tx, ...(at ? { startAfter: at } : {}) },
      );
    },
    async send(tx, notificationIds, at) {
      if (notificationIds.length === 0) return;
      const startAfter = at ?? new Date(0);
      await queue.sendMany(
        QUEUES.alerts,
        notificationIds.map((notificationId) => ({ data: { kind: 'send', notificationId }, startAfter })),
        tx,
      );
    },
  };
}

/**
 * The `OperatorEvents` port: the event is kept, with the job that evaluates it, in the caller's transaction, and
 * only when an enabled rule of the account watches its type (one statement, and nothing kept, for other accounts).
 */
export function createOperatorEvents(jobs: AlertJobs): OperatorEvents {
  return {
    async record(tx, event) {
      const kept = await insertOperatorEvent(tx, {
        accountId: event.account_id,
        type: event.type,
        at: event.at,
        destinationHost: event.destination_host ?? null,
        subject: event.subject ?? null,
        details: event.details,
      });
      if (kept) await jobs.evaluate(tx, event.account_id);
    },
  };
}

/** The alerts trigger: each job evaluates an account's rules (app/alerts/evaluate.ts) or sends one message (send.ts). */
export function workAlerts(
  queue: JobQueue,
  alerts: { evaluation: Pick<AlertEvaluation, 'evaluate'>; sender: Pick<AlertSender, 'send'> },
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.alerts,
    { batchSize: 20, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
    (job) =>
      job.kind === 'evaluate'
        ? alerts.evaluation.evaluate(job.accountId, job.wakeAt ? new Date(job.wakeAt) : undefined)
        : alerts.sender.send(job.notificationId),
    failed,
  );
}
