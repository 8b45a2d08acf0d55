import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { realDeadline } from '../app/clock.js';
import type { DestinationWake, GateTimer } from '../app/ports.js';
import { jobSqlOn, type Sql } from '../persistence/database.js';
import { connectionConfig } from '../persistence/hosts.js';

/** Every queue the service uses; all scheduled work goes through pg-boss in its own `pgboss` schema. */
export const QUEUES = Object.freeze({
  /** One job per callback delivery attempt. */
  callback: 'sched.callback',
  /** The end of a pause with `until` (app/actions/pause.ts). */
  actionResume: 'sched.action-resume',
  /** Approval gate timers: timeout and escalation. */
  gateTimer: 'sched.gate-timer',
  /** Background re-checks of domains pending verification (app/domains). */
  domainCheck: 'sched.domain-check',
  /** The daily history purge (cron). */
  retention: 'sched.retention',
  /** One job per started bulk operation (and per hand-on when a run spends its time budget). */
  bulkOperation: 'sched.bulk-operation',
  /** A destination's held deliveries, released: its circuit turns half-open or closes, its pause ends. */
  destinationWake: 'sched.destination-wake',
  /** Alert rules: an account's evaluation (when events are recorded, and when a waiting group is due) or one message. */
  alerts: 'sched.alerts',
} as const);

type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** The queue of the per-attempt jobs of earlier versions, deleted at a worker's start. */
const RETIRED_ACTION_DUE_QUEUE = 'sched.action-due';

/**
 * What each queue's jobs carry: `send` and `work` are typed from it, so a producer and its worker cannot disagree
 * (the one declaration of every job payload).
 */
export interface JobPayloads {
  'sched.callback': { callbackId: string };
  /** A pause's end: the pause is named by when it began, so a later pause of the action is left alone. */
  'sched.action-resume': { actionId: string; pausedAt: string };
  'sched.gate-timer': GateTimer;
  'sched.domain-check': { accountId: string; domain: string };
  'sched.retention': Record<string, never>;
  'sched.bulk-operation': { operationId: string };
  'sched.destination-wake': DestinationWake;
  /** `wakeAt`: the due time of a waiting group this evaluation was set for (app/alerts/evaluate.ts). */
  'sched.alerts':
    | { kind: 'evaluate'; accountId: string; wakeAt?: string }
    | { kind: 'send'; notificationId: string };
}

/** How a worker takes its queue's jobs (pg-boss's work options we use). */
interface WorkOptions {
  batchSize: number;
  pollingIntervalSeconds: number;
  notifyPollingIntervalSeconds?: number;
  burstWhenBatchFull?: boolean;
}

/** A running worker of one queue. */
export interface JobWorker {
  /** Stops taking jobs, then waits up to `timeoutMs` for the jobs in hand (an unfinished one is retried). */
  stop(timeoutMs: number): Promise<void>;
}

/** Created jobs must outlive the longest schedule horizon (365 days), or pg-boss would prune them unrun. */
const RETENTION_SECONDS = 400 * 24 * 3600;

export interface JobQueue {
  /** Enqueues inside the caller's transaction, so the row and its job commit together. */
  send<K extends QueueName>(
    queue: K,
    data: JobPayloads[K],
    /** `db`: the caller's connection (its transaction). */
    options: { startAfter?: Date; singletonKey?: string; db?: Sql },
  ): Promise<string | null>;
  /** Enqueues several jobs in one statement, inside the caller's transaction. */
  sendMany<K extends QueueName>(
    queue: K,
    jobs: { data: JobPayloads[K]; startAfter: Date }[],
    db: Sql,
  ): Promise<void>;
  /**
   * Hands each job of `queue` to `handle` (a batch at a time; a failed job fails its batch, which pg-boss retries).
   * `failed` hears each failure first (to log it).
   */
  work<K extends QueueName>(
    queue: K,
    options: WorkOptions,
    handle: (data: JobPayloads[K]) => Promise<void>,
    failed: (err: unknown) => void,
  ): Promise<JobWorker>;
  /** A cron job: `queue` gets a job with `data` on each `cron` tick (UTC), from whichever worker's turn it is. */
  cron<K extends QueueName>(queue: K, cron: string, data: JobPayloads[K]): Promise<void>;
  stop(opts: { graceful: boolean; timeoutMs: number }): Promise<void>;
}

export async function startJobQueue(opts: {
  databaseUrl: string;
  role: 'api' | 'worker' | 'all';
  logger: Logger;
  /** Takes the database faults pg-boss reports on every poll while the database is away (logged once there). */
  availability?: { absorbs(err: unknown): boolean };
  connectTimeoutMs?: number;
  /** pg-boss's expiry of an active job (default 300 s); set when the queues are created. */
  expireInSeconds?: number;
}): Promise<JobQueue> {
  const works = opts.role !== 'api';
  const boss = new PgBoss({
    // One host, or the writable one of libpq's list (persistence/hosts.ts).
    ...connectionConfig(opts.databaseUrl),
    schema: 'pgboss',
    max: works ? 10 : 4,
    application_name: `sched-${opts.role}-queue`,
    ...(opts.connectTimeoutMs ? { connectionTimeoutMillis: opts.connectTimeoutMs } : {}),
    // Only workers run maintenance and cron; API processes just enqueue.
    supervise: works,
    schedule: works,
    migrate: true,
    useListenNotify: works,
  });
  boss.on('error', (err) => {
    if (!opts.availability?.absorbs(err)) opts.logger.error({ err }, 'job queue error');
  });
  await boss.start();
  for (const name of Object.values(QUEUES)) {
    await boss
      .createQueue(name, {
        notify: true,
        partition: true,
        retentionSeconds: RETENTION_SECONDS,
        deleteAfterSeconds: 3600,
        retryLimit: 5,
        retryDelay: 1,
        expireInSeconds: opts.expireInSeconds ?? 300,
      })
      .catch((err: unknown) => {
        // Several processes may create the same queue at once; an existing queue is fine.
        if (!String(err).includes('already exists')) throw err;
      });
  }
  // Due attempts once had a job each; workers now claim them from the actions table (app/deliveries/firing.ts), so
  // the queue of those jobs goes, with whatever it still holds: the rows are the schedule.
  if (works) await boss.deleteQueue(RETIRED_ACTION_DUE_QUEUE).catch(() => undefined);
  // pg-boss runs its statements on the caller's connection (its transaction) through persistence's adapter.
  const inTransaction = jobSqlOn;
  return {
    async send(queue, data, o) {
      return boss.send(queue, data, {
        ...(o.startAfter ? { startAfter: o.startAfter } : {}),
        ...(o.singletonKey ? { singletonKey: o.singletonKey } : {}),
        ...(o.db ? { db: inTransaction(o.db) } : {}),
      });
    },
    async sendMany(queue, jobs, db) {
      await boss.insert(queue, jobs, { db: inTransaction(db) });
    },
    async work(queue, options, handle, failed) {
      const inflight = new Set<Promise<unknown>>();
      const track = (p: Promise<void>) => {
        const guarded = p.catch((err: unknown) => {
          failed(err);
          throw err;
        });
        inflight.add(guarded);
        void guarded.finally(() => inflight.delete(guarded)).catch(() => undefined);
        return guarded;
      };
      await boss.work<JobPayloads[typeof queue]>(queue, options, async (jobs) => {
        await Promise.all(jobs.map((j) => track(handle(j.data))));
      });
      return {
        async stop(timeoutMs) {
          await boss.offWork(queue).catch(() => undefined);
          await Promise.race([Promise.allSettled([...inflight]), realDeadline(timeoutMs)]);
        },
      };
    },
    async cron(queue, cron, data) {
      await boss.schedule(queue, cron, data, { tz: 'UTC' });
    },
    async stop({ graceful, timeoutMs }) {
      await boss.stop({ graceful, timeout: timeoutMs });
    },
  };
}
