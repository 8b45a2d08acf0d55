import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { realDeadline, systemClock } from '../app/clock.js';
import type { Clock, DestinationWake, GateTimer, Store } from '../app/ports.js';
import { jobSqlOn, type Sql } from '../persistence/database.js';
import { announceJob } from '../persistence/job-wakes.js';
import type { Notifications } from '../persistence/notifications.js';
import { connectionConfig } from '../persistence/hosts.js';
import { TIMED_ANNOUNCE_MS, TimedWakes } from './timed-wakes.js';

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

/**
 * The queues whose delayed jobs are timers that must run at their time: their workers are woken at each next job's
 * time (jobs/timed-wakes.ts), and a send of one due soon is announced at its commit. The others' delayed jobs (a
 * domain's re-check, a bulk run's hand-on) may wait for their worker's poll.
 */
const TIMED_QUEUES: ReadonlySet<QueueName> = new Set([
  QUEUES.callback,
  QUEUES.actionResume,
  QUEUES.gateTimer,
  QUEUES.destinationWake,
  QUEUES.alerts,
]);

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

/**
 * The poll of a timed queue's worker while jobs/timed-wakes.ts wakes it (pg-boss's own fetch, a backstop). Instead of
 * each timed queue polling often, its worker is woken at its next job's time (announced at the send's commit when due
 * soon, read every few seconds otherwise), and a full batch fetches again at once. A job due now is announced by
 * pg-boss's NOTIFY at its commit, as on every queue.
 */
const TIMED_BACKSTOP_SECONDS = 30;
/** pg-boss's wait before it retries a job whose handler failed (every queue's `retryDelay`). */
const RETRY_DELAY_SECONDS = 1;

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
  /** The clock the senders' `startAfter` times come from (whether a job is due soon enough to announce). */
  clock?: Clock;
  /** pg-boss's expiry of an active job (default 300 s); set when the queues are created. */
  expireInSeconds?: number;
  /** Where the timed queues' next jobs are read (`TIMED_QUEUES`); without it, those queues poll. */
  store?: Store;
  /** The process's LISTEN connection, where delayed jobs due soon are announced (jobs/timed-wakes.ts). */
  listen?: () => Promise<Notifications>;
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
    // The cron's hop queue (pg-boss's send-it) needs no 5 s poll for a daily job (retention): once in 30 s will do.
    cronWorkerIntervalSeconds: 30,
    // Maintenance (expiring jobs a dead worker abandoned, deleting finished ones, queue statistics) is about four
    // transactions per queue table a pass, most of an idle server's statements at pg-boss's 60 s: every 2 minutes,
    // an abandoned job (already past its 5-minute expiry) waits at most a minute longer for its retry.
    superviseIntervalSeconds: 120,
    monitorIntervalSeconds: 120,
    // Flows (jobs that wait for other jobs) are never sent here, yet pg-boss's resolver looks for finished parents
    // in every queue table every 5 s, one statement per table: once an hour finds the same nothing.
    flowIntervalSeconds: 3600,
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
        retryDelay: RETRY_DELAY_SECONDS,
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
  const store = opts.store;
  const clock = opts.clock ?? systemClock;
  const timed =
    store && works
      ? new TimedWakes({
          store,
          wake: (id) => boss.notifyWorker(id),
          clock,
          ...(opts.listen ? { listen: opts.listen } : {}),
          ...(opts.availability ? { availability: opts.availability } : {}),
          logger: opts.logger,
        })
      : undefined;
  // A delayed job due soon is announced at the send's commit, to whichever process works its queue: the reads of
  // the next jobs are seconds apart. pg-boss announces those due at once itself.
  const announce = async (queue: QueueName, dues: readonly Date[], db: Sql | undefined) => {
    if (!TIMED_QUEUES.has(queue)) return;
    const now = clock().getTime();
    const soonest = Math.min(...dues.map((d) => d.getTime()).filter((ms) => ms > now));
    const on = db ?? store?.sql;
    if (on && soonest - now < TIMED_ANNOUNCE_MS) await announceJob(on, queue, new Date(soonest));
  };
  return {
    async send(queue, data, o) {
      const id = await boss.send(queue, data, {
        ...(o.startAfter ? { startAfter: o.startAfter } : {}),
        ...(o.singletonKey ? { singletonKey: o.singletonKey } : {}),
        ...(o.db ? { db: inTransaction(o.db) } : {}),
      });
      // A singleton already waiting (no id) was announced with its own send.
      if (id !== null && o.startAfter) await announce(queue, [o.startAfter], o.db);
      return id;
    },
    async sendMany(queue, jobs, db) {
      await boss.insert(queue, jobs, { db: inTransaction(db) });
      await announce(
        queue,
        jobs.map((j) => j.startAfter),
        db,
      );
    },
    async work(queue, options, handle, failed) {
      const inflight = new Set<Promise<unknown>>();
      const isTimed = TIMED_QUEUES.has(queue);
      const woken = isTimed && timed !== undefined;
      const track = (p: Promise<void>) => {
        const guarded = p.catch((err: unknown) => {
          failed(err);
          // pg-boss retries the job after its fixed delay: nothing else announces that.
          if (woken) timed.expect(queue, clock().getTime() + RETRY_DELAY_SECONDS * 1000 + 50);
          throw err;
        });
        inflight.add(guarded);
        void guarded.finally(() => inflight.delete(guarded)).catch(() => undefined);
        return guarded;
      };
      const workerId = await boss.work<JobPayloads[typeof queue]>(
        queue,
        {
          ...options,
          // Unwoken, a timed queue polls at its pace whether NOTIFY works or not (a delayed job sends none).
          ...(isTimed
            ? {
                notifyPollingIntervalSeconds: woken ? TIMED_BACKSTOP_SECONDS : options.pollingIntervalSeconds,
                // Jobs beyond a batch that fell due together are fetched at once, not at the next wake-up.
                ...(woken ? { burstWhenBatchFull: true } : {}),
              }
            : {}),
        },
        async (jobs) => {
          await Promise.all(jobs.map((j) => track(handle(j.data))));
        },
      );
      if (woken) timed.add(queue, workerId);
      return {
        async stop(timeoutMs) {
          if (woken) timed.remove(queue);
          await boss.offWork(queue).catch(() => undefined);
          await Promise.race([Promise.allSettled([...inflight]), realDeadline(timeoutMs)]);
        },
      };
    },
    async cron(queue, cron, data) {
      await boss.schedule(queue, cron, data, { tz: 'UTC' });
    },
    async stop({ graceful, timeoutMs }) {
      timed?.stop();
      await boss.stop({ graceful, timeout: timeoutMs });
    },
  };
}
