import type { PauseTimers } from '../app/ports.js';
import { type JobPayloads, type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** Pause timers as pg-boss jobs, written in the caller's transaction (durable: no in-process timer). */
export function createPauseTimers(queue: JobQueue): PauseTimers {
  return {
    async resumeAt(tx, actionId, at, pausedAt) {
      await queue.send(QUEUES.actionResume, { actionId, pausedAt }, { startAfter: at, db: tx });
    },
  };
}

/** The worker of `action-resume` jobs: thin, the use case decides whether the pause is still the one to end. */
export function workResumes(
  queue: JobQueue,
  resume: (job: JobPayloads['sched.action-resume']) => Promise<void>,
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(QUEUES.actionResume, { batchSize: 20, pollingIntervalSeconds: 0.5 }, resume, failed);
}
