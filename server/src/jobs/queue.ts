import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { jobSqlOn, type Sql } from '../persistence/database.js';
import { connectionConfig } from '../persistence/hosts.js';

/** Every queue the service uses; all scheduled work goes through pg-boss in its own `pgboss` schema. */
export const QUEUES = Object.freeze({
  /** One job per due attempt of an action; the durable trigger behind the in-process timers. */
  actionDue: 'sched.action-due',
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
});

/** Created jobs must outlive the longest schedule horizon (365 days), or pg-boss would prune them unrun. */
const RETENTION_SECONDS = 400 * 24 * 3600;

export interface JobQueue {
  boss: PgBoss;
  /** Enqueues inside the caller's transaction, so the row and its job commit together. */
  send(
    queue: string,
    data: object,
    /** `db`: the caller's connection (its transaction). */
    options: { startAfter?: Date; singletonKey?: string; db?: Sql },
  ): Promise<string | null>;
  /** Enqueues several jobs in one statement, inside the caller's transaction. */
  sendMany(queue: string, jobs: { data: object; startAfter: Date }[], db: Sql): Promise<void>;
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
  // pg-boss runs its statements on the caller's connection (its transaction) through persistence's adapter.
  const inTransaction = jobSqlOn;
  return {
    boss,
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
    async stop({ graceful, timeoutMs }) {
      await boss.stop({ graceful, timeout: timeoutMs });
    },
  };
}
