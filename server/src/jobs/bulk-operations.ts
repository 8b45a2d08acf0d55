import type { Logger } from 'pino';
import type { BulkRunner } from '../app/bulk/runner.js';
import type { BulkOperationQueue, Timers } from '../app/ports.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** A started operation's job, written in the transaction that snapshotted it. */
export function createBulkOperationQueue(queue: JobQueue): BulkOperationQueue {
  return {
    async enqueue(db, operationId) {
      await queue.send(QUEUES.bulkOperation, { operationId }, { db });
    },
  };
}

/**
 * The worker side: each job runs its operation (app/bulk/runner.ts); a sweep every few seconds runs operations no
 * worker holds, so a worker killed mid-run is replaced within its lease rather than at the job's expiry.
 * `stopRuns` ends the sweep and has a run in progress stop after its page (call it first when shutting down).
 */
export async function workBulkOperations(
  queue: JobQueue,
  runner: BulkRunner,
  logger: Logger,
  sweepEveryMs: number,
  timers: Timers,
): Promise<{ worker: JobWorker; stopRuns: () => void }> {
  const worker = await queue.work(
    QUEUES.bulkOperation,
    { batchSize: 1, pollingIntervalSeconds: 1 },
    async (job) => {
      const end = await runner.run(job.operationId);
      logger.info({ operation: job.operationId, end }, 'bulk operation run');
    },
    (err) => logger.warn({ err }, 'bulk operation run failed; the job will be retried'),
  );
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const ran = await runner.recover();
      if (ran > 0) logger.info({ ran }, 'bulk operations resumed');
    } catch (err) {
      logger.warn({ err }, 'bulk operation sweep failed');
    } finally {
      sweeping = false;
    }
  };
  let timer: { cancel(): void } | undefined;
  const every = () => {
    void sweep();
    timer = timers.after(sweepEveryMs, every);
  };
  every();
  return {
    worker,
    stopRuns: () => {
      timer?.cancel();
      runner.stop();
    },
  };
}
