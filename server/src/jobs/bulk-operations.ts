import type { Logger } from 'pino';
import type { BulkRunner } from '../app/bulk/runner.js';
import type { BulkOperationQueue } from '../app/ports.js';
import { type JobQueue, QUEUES } from './queue.js';

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
 */
export async function workBulkOperations(
  queue: JobQueue,
  runner: BulkRunner,
  logger: Logger,
  sweepEveryMs: number,
): Promise<() => void> {
  await queue.boss.work<{ operationId: string }>(
    QUEUES.bulkOperation,
    { batchSize: 1, pollingIntervalSeconds: 1 },
    async ([job]) => {
      if (!job) return;
      const end = await runner.run(job.data.operationId);
      logger.info({ operation: job.data.operationId, end }, 'bulk operation run');
    },
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
  void sweep();
  const timer = setInterval(() => void sweep(), sweepEveryMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    runner.stop();
  };
}
