import type { DomainCheckQueue, DomainService } from '../app/domains/service.js';
import { type JobQueue, QUEUES } from './queue.js';

interface DomainCheckJob {
  accountId: string;
  domain: string;
}

/** Background checks of pending domains as pg-boss jobs, written in the caller's transaction. */
export function createDomainCheckQueue(queue: JobQueue): DomainCheckQueue {
  return {
    async schedule(db, accountId, domain, at) {
      const data: DomainCheckJob = { accountId, domain };
      await queue.send(QUEUES.domainCheck, data, { startAfter: at, db });
    },
  };
}

/** The worker of `domain-check` jobs: thin, the use case decides whether the job is still current. */
export async function workDomainChecks(queue: JobQueue, domains: DomainService): Promise<void> {
  await queue.boss.work<DomainCheckJob>(
    QUEUES.domainCheck,
    { batchSize: 5, pollingIntervalSeconds: 5 },
    async (jobs) => {
      for (const job of jobs) await domains.backgroundCheck(job.data.accountId, job.data.domain);
    },
  );
}
