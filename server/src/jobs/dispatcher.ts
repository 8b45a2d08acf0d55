import type { Logger } from 'pino';
import { Admission, type AdmissionLimits } from '../app/deliveries/admission.js';
import { CLAIM_LEAD_MS, type Deliveries } from '../app/deliveries/deliver.js';
import { systemTimers } from '../app/clock.js';
import type { Clock, Store, Timers } from '../app/ports.js';
import type { Notifications } from '../persistence/notifications.js';
import { accountOf, resolvedDueBefore } from '../persistence/schedule.js';
import { type JobQueue, type JobWorker, QUEUES } from './queue.js';
import { ANNOUNCE_WINDOW_MS } from '../domain/schedule/window.js';
import { DUE_CHANNEL, type WindowScheduler } from './scheduler.js';

/** An attempt this late with no trigger firing it in this process is taken up by the overdue sweep. */
const OVERDUE_GRACE_MS = 5_000;
const OVERDUE_BATCH = 1_000;

export interface DispatcherOptions {
  store: Store;
  /** The process's LISTEN connection (persistence/notifications.ts). */
  notifications: Notifications;
  queue: JobQueue;
  scheduler: WindowScheduler;
  deliveries: Deliveries;
  logger: Logger;
  clock: Clock;
  /** Timers on `clock` (app/ports.ts); the system's when absent. */
  timers?: Timers;
  /** Caps on delivery attempts in flight in this process (SCHED_DELIVERY_CONCURRENCY, ..._ACCOUNT_CONCURRENCY). */
  limits: AdmissionLimits;
  /** Records database faults (an outage is logged once there); other errors are logged here. */
  availability?: { absorbs(err: unknown): boolean };
  /** How often due actions are scanned for timers (and `scheduled` ones promoted to `resolved`). */
  scanIntervalMs?: number;
}

/**
 * Fires actions on time. pg-boss jobs at each due time are the durable trigger (a restart loses nothing), written
 * by the scheduler once an attempt is within the look-ahead window (the scan writes them as attempts enter it); on top,
 * workers arm in-process timers for attempts due within the look-ahead window, learned from NOTIFY when an attempt
 * is scheduled inside it, from the scan as attempts enter it, and from one full read when a worker starts listening,
 * so an attempt starts within milliseconds of its time rather than a poll later. Whichever fires first claims the
 * attempt; the others find nothing to do. docs/architecture.md describes the whole trigger design.
 */
export class Dispatcher {
  /** The attempts armed in this process, each with its timer. */
  private readonly armed = new Map<string, { cancel(): void }>();
  private readonly inflight = new Set<Promise<unknown>>();
  private jobs: JobWorker | undefined;
  private scanTimer: { cancel(): void } | undefined;
  private stopped = false;
  private scans = 0;
  private readonly admission: Admission<string>;
  /** Each action's admission in progress (waiting or firing): several triggers of one attempt share it. */
  private readonly admitted = new Map<string, Promise<void>>();
  /** Waiting attempts' starters: true to fire, false when the worker stops first. */
  private readonly starters = new Map<string, (go: boolean) => void>();
  /** Per action fired by a job: resolved once the attempt is held behind a cap (the job then completes). */
  private readonly held = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  constructor(private readonly o: DispatcherOptions) {
    this.admission = new Admission(o.limits);
  }

  /** The timers of the dispatcher's clock: its attempts' timers and its scan. */
  private get timers(): Timers {
    return this.o.timers ?? systemTimers;
  }

  /** Delivery attempts firing in this process. */
  get inFlight(): number {
    return this.admission.inFlight;
  }

  /** Delivery attempts waiting (unclaimed) because their account's cap or the process's cap is reached. */
  get waiting(): number {
    return this.admission.queued;
  }

  async start(): Promise<void> {
    await this.listen();
    this.jobs = await this.o.queue.work(
      QUEUES.actionDue,
      {
        batchSize: 50,
        pollingIntervalSeconds: 0.5,
        notifyPollingIntervalSeconds: 0.5,
        burstWhenBatchFull: true,
      },
      async (job) => {
        await this.fireForJob(job.actionId, job.accountId);
      },
      // Logged once, where the attempt is tracked (track); the job is then retried.
      () => undefined,
    );
    void this.scanLoop();
  }

  /** Stops arming timers and taking jobs, then waits for attempts in flight (their rows stay durable regardless). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.scanTimer?.cancel();
    for (const t of this.armed.values()) t.cancel();
    this.armed.clear();
    for (const start of this.starters.values()) start(false);
    this.starters.clear();
    await Promise.all([
      this.jobs?.stop(timeoutMs),
      Promise.race([
        Promise.allSettled([...this.inflight]),
        new Promise((r) => setTimeout(r, timeoutMs).unref()),
      ]),
    ]);
  }

  private failed(err: unknown): void {
    if (!this.o.availability?.absorbs(err))
      this.o.logger.error({ err }, 'delivery work failed; the job will be retried');
  }

  /** A timer's attempt in flight, so `stop` waits for it (the pg-boss worker tracks its jobs' own). */
  private track<T>(p: Promise<T>): Promise<T | undefined> {
    const guarded = p.catch((err: unknown) => {
      this.failed(err);
      throw err;
    });
    this.inflight.add(guarded);
    void guarded.finally(() => this.inflight.delete(guarded)).catch(() => undefined);
    return guarded;
  }

  /**
   * A pg-boss job's part in firing: it ends when the attempt is delivered, or as soon as the attempt is held behind a
   * cap. A held attempt stays durable and due in its row (the overdue sweep of any worker fires it should this
   * process die), so its job completes instead of staying active into pg-boss's expiry and retries, which a long
   * backlog outlasted, stranding the attempt until a worker started (issue 21, item 7).
   */
  private fireForJob(actionId: string, accountId?: string): Promise<unknown> {
    const work = this.track(this.fire(actionId, accountId));
    let held = this.held.get(actionId);
    if (!held) {
      let resolve!: () => void;
      held = { promise: new Promise<void>((r) => (resolve = r)), resolve };
      this.held.set(actionId, held);
      void work.finally(() => this.held.delete(actionId)).catch(() => undefined);
    }
    if (this.starters.has(actionId)) held.resolve();
    return Promise.race([work, held.promise]);
  }

  /** Fires an action's due attempt once the per-process and per-account caps allow it (app/deliveries/admission.ts). */
  private fire(actionId: string, accountId?: string): Promise<void> {
    const pending = this.admitted.get(actionId);
    if (pending) return pending;
    const admitted = this.admit(actionId, accountId).finally(() => this.admitted.delete(actionId));
    this.admitted.set(actionId, admitted);
    return admitted;
  }

  private async admit(actionId: string, accountId: string | undefined): Promise<void> {
    // Timers know the account from the announcement, pg-boss jobs from their data; only a job written before
    // jobs carried it (an upgrade in flight) needs the read.
    const account = accountId ?? (await accountOf(this.o.store.sql, actionId));
    if (!account || this.stopped) return;
    // Over a cap the attempt waits here unclaimed: its lease has not started, so waiting cannot expire it.
    if (!this.admission.offer(account, actionId)) {
      const go = await new Promise<boolean>((resolve) => {
        this.starters.set(actionId, resolve);
        this.held.get(actionId)?.resolve();
      });
      if (!go) return;
    }
    let retryAt: Date | null = null;
    try {
      retryAt = await this.o.deliveries.fire(actionId);
    } finally {
      for (const next of this.admission.release(account)) {
        const start = this.starters.get(next.item);
        this.starters.delete(next.item);
        start?.(!this.stopped);
      }
    }
    // Held by its host's flow control: looked at again shortly (after this admission ends, so the timer's fire is
    // a new one). Should this process die, the row is still due and any worker's overdue sweep fires it.
    if (retryAt) {
      const at = retryAt.getTime();
      void Promise.resolve().then(() => this.arm(actionId, account, at));
    }
  }

  /**
   * Fires due attempts a destination held, now that it may let them through (a destination wake). Each is tracked
   * like a timer's; should this process die first, they are still due and any worker's overdue sweep fires them.
   */
  fireHeld(actionIds: readonly string[], accountId: string): void {
    for (const id of actionIds)
      if (!this.stopped && !this.admitted.has(id))
        void this.track(this.fire(id, accountId)).catch(() => undefined);
  }

  private arm(actionId: string, accountId: string, dueMs: number): void {
    if (this.stopped || this.armed.has(actionId)) return;
    // A little early, so the claim's round trip is made before the due time (Deliveries.fire sends at it).
    const delay = Math.max(0, dueMs - CLAIM_LEAD_MS - this.o.clock().getTime());
    if (delay > ANNOUNCE_WINDOW_MS) return;
    const timer = this.timers.after(delay, () => {
      this.armed.delete(actionId);
      void this.track(this.fire(actionId, accountId)).catch(() => undefined);
    });
    this.armed.set(actionId, timer);
  }

  private async listen(): Promise<void> {
    await this.o.notifications.subscribe(DUE_CHANNEL, {
      payload: (payload) => {
        const [id, due, account] = payload.split(',');
        if (id && due && account) this.arm(id, account, Number(due));
      },
      reconnected: () => {
        this.armWindow().catch((err: unknown) => {
          if (!this.o.availability?.absorbs(err))
            this.o.logger.warn(
              { err },
              'reading the due window after a reconnection failed; the scan goes on',
            );
        });
      },
    });
    await this.armWindow();
  }

  /** Announcements made while this worker was not listening are lost: arm every attempt due in the window once. */
  private async armWindow(): Promise<void> {
    if (this.stopped) return;
    const until = new Date(this.o.clock().getTime() + ANNOUNCE_WINDOW_MS);
    for (const row of await resolvedDueBefore(this.o.store.sql, until))
      this.arm(row.id, row.accountId, row.dueMs);
  }

  private async scanLoop(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.scan();
    } catch (err) {
      if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, 'due scan failed');
    }
    if (!this.stopped)
      this.scanTimer = this.timers.after(this.o.scanIntervalMs ?? 1000, () => void this.scanLoop());
  }

  /**
   * Attempts overdue by more than OVERDUE_GRACE_MS and not firing here: held by a worker that died, or whose job was
   * lost to an outage's retries. Fired like any trigger; the claim makes sure one worker delivers each.
   */
  private async fireOverdue(): Promise<void> {
    const until = new Date(this.o.clock().getTime() - OVERDUE_GRACE_MS);
    for (const row of await resolvedDueBefore(this.o.store.sql, until, OVERDUE_BATCH)) {
      if (this.stopped) return;
      if (!this.admitted.has(row.id))
        void this.track(this.fire(row.id, row.accountId)).catch(() => undefined);
    }
  }

  private async scan(): Promise<void> {
    // Attempts entering the window get their timer here; those written inside it were announced by NOTIFY.
    for (const e of await this.o.scheduler.enqueueEntering(this.o.store))
      this.arm(e.id, e.accountId, e.dueMs);
    // Leases are checked every few scans; an expired one means a worker died mid-attempt.
    this.scans += 1;
    if (this.scans % 5 === 0) {
      await this.o.deliveries.sweepExpiredLeases();
      await this.fireOverdue();
    }
  }
}
