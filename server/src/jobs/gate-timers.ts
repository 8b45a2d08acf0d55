import type { Logger } from 'pino';
import type { GateTimeouts } from '../app/approvals/timers.js';
import type { GateTimer, GateTimers } from '../app/ports.js';
import { type JobQueue, QUEUES } from './queue.js';

/** The `GateTimers` port: a gate timer is a pg-boss job at its time, written in the caller's transaction. */
export function createGateTimers(queue: JobQueue): GateTimers {
  return {
    async set(tx, timer, at) {
      await queue.send(QUEUES.gateTimer, timer, { startAfter: at, db: tx });
    },
  };
}

/** The gate-timer trigger: each fired job goes to the use case (app/approvals/timers.ts). */
export class GateTimerWorker {
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly queue: JobQueue,
    private readonly timeouts: Pick<GateTimeouts, 'fire'>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.queue.boss.work<GateTimer>(
      QUEUES.gateTimer,
      { batchSize: 20, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      async (jobs) => {
        await Promise.all(jobs.map((j) => this.track(this.timeouts.fire(j.data))));
      },
    );
  }

  /** Stops taking jobs, then waits up to `timeoutMs` for the timers being applied (a failed one is retried). */
  async stop(timeoutMs: number): Promise<void> {
    await this.queue.boss.offWork(QUEUES.gateTimer).catch(() => undefined);
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => setTimeout(r, timeoutMs).unref()),
    ]);
  }

  private track(p: Promise<void>): Promise<void> {
    const guarded = p.catch((err: unknown) => {
      this.logger.error({ err }, 'gate timer failed; the job will be retried');
      throw err;
    });
    this.inflight.add(guarded);
    void guarded.finally(() => this.inflight.delete(guarded)).catch(() => undefined);
    return guarded;
  }
}
