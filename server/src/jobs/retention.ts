import type { Logger } from 'pino';
import type { RetentionService } from '../app/retention.js';
import type { Metrics } from '../metrics.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** Daily at 03:17 UTC: off the hour, when most schedules fire. */
const RETENTION_CRON = '17 3 * * *';
/** One run stays well inside the queue's 300 s job expiry; a backlog continues in a follow-up job. */
const RUN_BUDGET_MS = 240_000;

/** The daily purge of history past the plans' retention, as a pg-boss cron job; the worker stays thin. */
export async function workRetention(
  queue: JobQueue,
  retention: RetentionService,
  metrics: Metrics,
  logger: Logger,
): Promise<JobWorker> {
  await queue.cron(QUEUES.retention, RETENTION_CRON, {});
  return queue.work(
    QUEUES.retention,
    { batchSize: 1, pollingIntervalSeconds: 60 },
    async () => {
      const total = await retention.purge({
        budgetMs: RUN_BUDGET_MS,
        onBatch: (counts) => {
          for (const [table, n] of Object.entries(counts)) if (n > 0) metrics.purgedRows.inc({ table }, n);
        },
      });
      logger.info({ purged: total }, 'history retention: purge run');
      if (!total.complete) await queue.send(QUEUES.retention, {}, {});
    },
    (err) => logger.warn({ err }, 'history retention run failed; the job will be retried'),
  );
}
