import type { Logger } from 'pino';
import type { BulkRunner } from '../app/bulk/runner.js';
import type { BulkOperationQueue, Timers } from '../app/ports.js';
import { PeriodicLoop } from './periodic.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** A started operation's job, written in the transaction that snapshotted it. */
export function createBulkOperationQueue(queue: JobQueue): BulkOperationQueue {
  return {
    async enqueue(db, operationId) {
      await queue.send(QUEUES.bulkOperation, { operationId }, { db });
    },
  };
}

/** The sweep's pace while operations run: well inside their lease (app/bulk/runner.ts `BULK_LEASE_MS`). */
export const BULK_SWEEP_MS = 2_000;
/**
 * The sweep's longest wait while no operation runs: an operation whose worker dies is taken over within this or its
 * lease, whichever is longer (the sweeps that see it running go back to their pace).
 */
export const BULK_IDLE_SWEEP_MS = 16_000;

/**
 * The worker side: each job runs its operation (app/bulk/runner.ts); a sweep every `sweepEveryMs` while operations
 * run runs those no worker holds, so a worker killed mid-run is replaced within its lease rather than at the job's
 * expiry. While none runs, the sweep backs off up to `idleSweepMs`. `stopRuns` ends the sweep and has a run in
 * progress stop after its page (call it first when shutting down).
 */
export async function workBulkOperations(
  queue: JobQueue,
  runner: BulkRunner,
  logger: Logger,
  sweep: { everyMs: number; idleMs: number },
  timers: Timers,
): Promise<{ worker: JobWorker; stopRuns: () => void }> {
  const sweeps = new PeriodicLoop({
    run: async () => {
      const found = await runner.recover();
      if (found.ran > 0) logger.info({ ran: found.ran }, 'bulk operations resumed');
      return found;
    },
    what: 'bulk operation sweep',
    intervalMs: sweep.everyMs,
    idle: (found) => !found.running,
    idleIntervalMs: sweep.idleMs,
    logger,
    timers,
  });
  const worker = await queue.work(
    QUEUES.bulkOperation,
    { batchSize: 1, pollingIntervalSeconds: 1 },
    async (job) => {
      const end = await runner.run(job.operationId);
      logger.info({ operation: job.operationId, end }, 'bulk operation run');
    },
    (err) => logger.warn({ err }, 'bulk operation run failed; the job will be retried'),
  );
  sweeps.start();
  return {
    worker,
    stopRuns: () => {
      void sweeps.stop();
      runner.stop();
    },
  };
}
