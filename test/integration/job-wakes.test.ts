import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/src/logger.js';
import { QUEUES, type JobQueue, startJobQueue } from '../../server/src/jobs/queue.js';
import { nextJobsDue } from '../../server/src/persistence/job-wakes.js';
import { openTestDatabase } from '../support/in-process.js';

// The timed queues (timers: gate timeouts, pause ends, destination wakes, alerts, callback retries) are not polled
// every half second each: one read of their next jobs wakes each worker at its job's time, and the workers' own polls
// are 30 s backstops. A delayed job still runs on time, and a job due now at once (pg-boss's NOTIFY).
describe('timed queues: woken by one read of their next jobs', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let queue: JobQueue;

  beforeAll(async () => {
    t = await openTestDatabase('job_wakes');
    queue = await startJobQueue({
      databaseUrl: t.url,
      role: 'worker',
      logger: createLogger('silent'),
      store: t.database,
    });
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, timeoutMs: 1000 });
    await t?.close();
  });

  it('answers how long until each queue’s next job, leaving out queues with none', async () => {
    const at = new Date(Date.now() + 60_000);
    await queue.send(QUEUES.domainCheck, { accountId: 'a', domain: 'later.example' }, { startAfter: at });
    const due = await nextJobsDue(t.database.sql, [QUEUES.domainCheck, QUEUES.bulkOperation]);
    expect([...due.keys()]).toEqual([QUEUES.domainCheck]);
    expect(due.get(QUEUES.domainCheck)).toBeGreaterThan(55_000);
    expect(due.get(QUEUES.domainCheck)).toBeLessThanOrEqual(60_000);
  });

  it('runs a delayed job of a timed queue at its time, long before the worker’s own 30 s poll', async () => {
    const ran: { key: string; at: number }[] = [];
    const worker = await queue.work(
      QUEUES.actionResume,
      { batchSize: 20, pollingIntervalSeconds: 0.5, timed: true },
      async (job) => {
        ran.push({ key: job.pausedAt, at: Date.now() });
      },
      () => undefined,
    );
    try {
      // Let the worker's first fetch (at start) pass: from here on only a wake-up or the backstop fetches.
      await new Promise((r) => setTimeout(r, 1_000));
      const sends: { key: string; due: number }[] = [];
      for (const delay of [1_500, 2_700]) {
        const due = Date.now() + delay;
        sends.push({ key: String(due), due });
        await queue.send(
          QUEUES.actionResume,
          { actionId: crypto.randomUUID(), pausedAt: String(due) },
          { startAfter: new Date(due) },
        );
      }
      await expect.poll(() => ran.length, { timeout: 10_000, interval: 50 }).toBe(2);
      for (const s of sends) {
        const run = ran.find((r) => r.key === s.key)!;
        // Never early; late by the read's pace (0.5 s) at most, with room for a loaded machine, and nowhere near 30 s.
        expect(run.at).toBeGreaterThanOrEqual(s.due - 5);
        expect(run.at - s.due).toBeLessThan(2_000);
      }
    } finally {
      await worker.stop(1_000);
    }
  });
});
