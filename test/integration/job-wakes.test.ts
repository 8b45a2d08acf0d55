import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/src/logger.js';
import { type JobQueue, QUEUES, startJobQueue } from '../../server/src/jobs/queue.js';
import { JOB_DUE_CHANNEL, nextJobsDue } from '../../server/src/persistence/job-wakes.js';
import { type Notifications, openNotifications } from '../../server/src/persistence/notifications.js';
import { openTestDatabase } from '../support/in-process.js';

// The timed queues (timers: gate timeouts, pause ends, destination wakes, alerts, callback retries) are not polled
// every half second each: a job sent due within a few seconds is announced at its commit, and one read of every timed
// queue's next jobs every 2.5 s finds those sent further ahead; each worker is woken at its job's time, and the
// workers' own polls are 30 s backstops. A delayed job still runs on time, and a job due now at once (pg-boss's
// NOTIFY). The jobs are sent by another queue (an API process's), so only the database carries what the worker learns.
describe('timed queues: woken at their jobs’ time, announced or read', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let worker: JobQueue;
  let sender: JobQueue;
  let notifications: Notifications;

  beforeAll(async () => {
    t = await openTestDatabase('job_wakes');
    notifications = await openNotifications(t.url);
    worker = await startJobQueue({
      databaseUrl: t.url,
      role: 'worker',
      logger: createLogger('silent'),
      store: t.database,
      listen: async () => notifications,
    });
    sender = await startJobQueue({
      databaseUrl: t.url,
      role: 'api',
      logger: createLogger('silent'),
      store: t.database,
    });
  });
  afterAll(async () => {
    await sender?.stop({ graceful: false, timeoutMs: 1000 });
    await worker?.stop({ graceful: false, timeoutMs: 1000 });
    await notifications?.close();
    await t?.close();
  });

  it('answers, per queue, whether a job is due already and how long until the next one; queues with none left out', async () => {
    const at = new Date(Date.now() + 60_000);
    await sender.send(QUEUES.domainCheck, { accountId: 'a', domain: 'later.example' }, { startAfter: at });
    await sender.send(
      QUEUES.domainCheck,
      { accountId: 'a', domain: 'now.example' },
      { startAfter: new Date(0) },
    );
    const due = await nextJobsDue(t.database.sql, [QUEUES.domainCheck, QUEUES.bulkOperation]);
    expect([...due.keys()]).toEqual([QUEUES.domainCheck]);
    const next = due.get(QUEUES.domainCheck)!;
    expect(next.dueNow).toBe(true);
    expect(next.nextInMs).toBeGreaterThan(55_000);
    expect(next.nextInMs).toBeLessThanOrEqual(60_000);
  });

  it('announces a delayed job due soon at its send only on a timed queue (a domain re-check waits for its poll)', async () => {
    const heard: string[] = [];
    const own = await openNotifications(t.url);
    try {
      await own.subscribe(JOB_DUE_CHANNEL, { payload: (p) => heard.push(p) });
      const soon = new Date(Date.now() + 1_000);
      await sender.send(
        QUEUES.domainCheck,
        { accountId: 'a', domain: 'untimed.example' },
        { startAfter: soon },
      );
      // A queue no worker here works: the job stays where it is.
      await sender.send(QUEUES.alerts, { kind: 'send', notificationId: 'announced' }, { startAfter: soon });
      await expect.poll(() => heard.length, { timeout: 5_000, interval: 20 }).toBe(1);
      // Both sends committed before the poll saw the one announcement; nothing else follows.
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual([`${QUEUES.alerts},${soon.getTime()}`]);
    } finally {
      await own.close();
    }
  });

  /** Runs `sends` (delays from now, in ms) on the resume queue; answers how late each ran, in send order. */
  const lateness = async (
    delays: readonly number[],
    o: { failFirst?: boolean; within?: number } = {},
  ): Promise<number[]> => {
    const ran = new Map<string, number>();
    let failed = false;
    const w = await worker.work(
      QUEUES.actionResume,
      { batchSize: 20, pollingIntervalSeconds: 0.5 },
      async (job) => {
        if (o.failFirst && !failed) {
          failed = true;
          throw new Error('the first run fails');
        }
        if (!ran.has(job.pausedAt)) ran.set(job.pausedAt, Date.now());
      },
      () => undefined,
    );
    try {
      // Let the worker's first fetch (at start) pass: from here on only a wake-up or the backstop fetches.
      await new Promise((r) => setTimeout(r, 1_000));
      const sends: { key: string; due: number }[] = [];
      const start = Date.now();
      for (const [i, delay] of delays.entries()) {
        const due = start + delay;
        const key = `${due}-${i}`;
        sends.push({ key, due });
        await sender.send(
          QUEUES.actionResume,
          { actionId: crypto.randomUUID(), pausedAt: key },
          { startAfter: new Date(due) },
        );
      }
      await expect
        .poll(() => ran.size, { timeout: (o.within ?? 10_000) + Math.max(...delays), interval: 50 })
        .toBe(delays.length);
      return sends.map((s) => {
        const late = ran.get(s.key)! - s.due;
        // Never early.
        expect(late).toBeGreaterThanOrEqual(-5);
        return late;
      });
    } finally {
      await w.stop(1_000);
    }
  };

  it('runs jobs sent due soon at their time (announced at commit), one after another in one queue', async () => {
    // Four timers of one queue, all before the next read (the worker's first read was 1 s before the sends): each
    // runs on time, not at that read.
    const late = await lateness([300, 600, 900, 1_400]);
    // With room for a loaded machine, and far from the read's 1.2 s lateness for the first or the backstop's 30 s.
    for (const l of late) expect(l).toBeLessThan(500);
  });

  it('runs a job sent further ahead than announcements reach at its time, found by the read', async () => {
    const [late] = await lateness([7_000]);
    expect(late).toBeLessThan(700);
  });

  it('runs the jobs of a batch and more falling due together at once (a full batch fetches again)', async () => {
    const late = await lateness(Array.from({ length: 45 }, () => 1_500));
    expect(Math.max(...late)).toBeLessThan(1_500);
  });

  it('retries a job whose handler failed after pg-boss’s delay, not at the next read', async () => {
    const [late] = await lateness([1_000], { failFirst: true });
    // The failed run at its time, its retry a second later (pg-boss's retry delay).
    expect(late).toBeGreaterThanOrEqual(1_000);
    expect(late).toBeLessThan(1_800);
  });
});
