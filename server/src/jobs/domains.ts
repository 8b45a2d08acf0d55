import type { DomainService } from '../app/domains/service.js';
import type { DomainCheckQueue } from '../app/ports.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';

/** Background checks of pending domains as pg-boss jobs, written in the caller's transaction. */
export function createDomainCheckQueue(queue: JobQueue): DomainCheckQueue {
  return {
    async schedule(db, accountId, domain, at) {
      await queue.send(QUEUES.domainCheck, { accountId, domain }, { startAfter: at, db });
    },
  };
}

/** The worker of `domain-check` jobs: thin, the use case decides whether the job is still current. */
export function workDomainChecks(
  queue: JobQueue,
  domains: DomainService,
  failed: (err: unknown) => void,
): Promise<JobWorker> {
  return queue.work(
    QUEUES.domainCheck,
    { batchSize: 5, pollingIntervalSeconds: 5 },
    (job) => domains.backgroundCheck(job.accountId, job.domain),
    failed,
  );
}
