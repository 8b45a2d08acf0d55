import type { GateTimeouts } from '../app/approvals/timers.js';
import type { GateTimers } from '../app/ports.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** The `GateTimers` port: a gate timer is a pg-boss job at its time, written in the caller's transaction. */
export function createGateTimers(queue: JobQueue): GateTimers {
  return {
    async set(tx, timer, at) {
      await queue.send(QUEUES.gateTimer, timer, { startAfter: at, db: tx });
    },
  };
}

/** The gate-timer trigger: each fired job goes to the use case (app/approvals/timers.ts). */
export function workGateTimers(
  queue: JobQueue,
  timeouts: Pick<GateTimeouts, 'fire'>,
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.gateTimer,
    { batchSize: 20, pollingIntervalSeconds: 0.5 },
    (timer) => timeouts.fire(timer),
    failed,
  );
}
