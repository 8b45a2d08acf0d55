import type { DestinationWake, DestinationWakes } from '../app/ports.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** Destination wakes as pg-boss jobs, written in the caller's transaction (durable: no in-process timer). */
export function createDestinationWakes(queue: JobQueue): DestinationWakes {
  return {
    async wakeAt(tx, wake, at) {
      await queue.send(QUEUES.destinationWake, wake, { startAfter: at, db: tx });
    },
  };
}

/**
 * The worker of `destination-wake` jobs: thin. The use case (app/destinations/breaker.ts `wake`) moves the circuit
 * and answers the held deliveries to fire; `fire` hands them to the dispatcher, whose claim decides each.
 */
export function workDestinationWakes(
  queue: JobQueue,
  wake: (job: DestinationWake) => Promise<string[]>,
  fire: (actionIds: string[], accountId: string) => void,
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.destinationWake,
    { batchSize: 10, pollingIntervalSeconds: 0.5 },
    async (job) => fire(await wake(job), job.accountId),
    failed,
  );
}
