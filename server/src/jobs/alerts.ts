import type { AlertEvaluation } from '../app/alerts/evaluate.js';
import type { AlertSender } from '../app/alerts/send.js';
import type { AlertWatch } from '../app/alerts/watch.js';
import type { AlertJobs, OperatorEvents } from '../app/ports.js';
import { ALERT_RULES_CHANNEL, insertOperatorEvent } from '../persistence/alerts.js';
import type { Notifications } from '../persistence/notifications.js';
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
 * only when an enabled rule of the account watches its type. The process's cache of what accounts watch answers
 * first, so an event nobody watches costs no statement; the insert checks the rules again (the database decides).
 */
export function createOperatorEvents(jobs: AlertJobs, watch: Pick<AlertWatch, 'watches'>): OperatorEvents {
  return {
    async record(tx, event) {
      if (!(await watch.watches(event.account_id, event.type, tx))) return;
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

/** Keeps the process's cache of what accounts watch fresh: a rule change is announced when it commits. */
export function listenForRuleChanges(
  notifications: Notifications,
  watch: Pick<AlertWatch, 'forget'>,
): Promise<void> {
  return notifications.subscribe(ALERT_RULES_CHANNEL, {
    payload: (accountId) => watch.forget(accountId),
    // Announcements sent while the connection was down are lost: forget everything.
    reconnected: () => watch.forget(),
  });
}

/** The alerts trigger: each job evaluates an account's rules (app/alerts/evaluate.ts) or sends one message (send.ts). */
export function workAlerts(
  queue: JobQueue,
  alerts: { evaluation: Pick<AlertEvaluation, 'evaluate'>; sender: Pick<AlertSender, 'send'> },
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.alerts,
    { batchSize: 20, pollingIntervalSeconds: 0.5 },
    (job) =>
      job.kind === 'evaluate'
        ? alerts.evaluation.evaluate(job.accountId, job.wakeAt ? new Date(job.wakeAt) : undefined)
        : alerts.sender.send(job.notificationId),
    failed,
  );
}
