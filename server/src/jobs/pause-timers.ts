import type { PauseTimers } from '../app/ports.js';
import { type JobQueue, QUEUES } from './queue.js';

/** A pause's end, as its pg-boss job carries it: the pause is named by when it began. */
export interface ResumeJob {
  actionId: string;
  pausedAt: string;
}

/** Pause timers as pg-boss jobs, written in the caller's transaction (durable: no in-process timer). */
export function createPauseTimers(queue: JobQueue): PauseTimers {
  return {
    async resumeAt(tx, actionId, at, pausedAt) {
      await queue.send(QUEUES.actionResume, { actionId, pausedAt } satisfies ResumeJob, {
        startAfter: at,
        db: tx,
      });
    },
  };
}
