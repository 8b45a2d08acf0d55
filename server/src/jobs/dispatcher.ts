import type { Logger } from 'pino';
import type { AdmissionLimits } from '../app/deliveries/admission.js';
import type { Deliveries } from '../app/deliveries/deliver.js';
import { Firing } from '../app/deliveries/firing.js';
import { systemTimers } from '../app/clock.js';
import type { Clock, Store, Timers } from '../app/ports.js';
import type { Notifications } from '../persistence/notifications.js';
import { DUE_CHANNEL, heldDue } from '../persistence/schedule.js';
import { announceMember, MEMBERS_CHANNEL } from '../persistence/workers.js';
import type { WindowScheduler } from './scheduler.js';

export interface DispatcherOptions {
  store: Store;
  /** The process's LISTEN connection (persistence/notifications.ts), holding the worker's member lock. */
  notifications: Notifications;
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
  /** How often the worker reads the live workers and the due index (and promotes `scheduled` ones entering the window). */
  scanIntervalMs?: number;
}

/**
 * The triggers of a worker's firing loop (app/deliveries/firing.ts), which claims due attempts of its share from the
 * `actions` table itself: the table is the only queue. What wakes the loop: a NOTIFY for each attempt scheduled
 * within the look-ahead window (jobs/scheduler.ts), heard on the process's LISTEN connection; and a scan every second
 * that, in one statement, reads the live workers (each holds a member lock on its LISTEN connection,
 * persistence/workers.ts), promotes attempts entering the window to `resolved` and reads the earliest due time of the
 * worker's share, the durable path should a NOTIFY be missed. Every fifth scan also hands on the attempts of workers
 * that died mid-attempt (expired leases) and looks again at the share's held attempts. docs/architecture.md describes the whole trigger design.
 */
export class Dispatcher {
  private readonly firing: Firing;
  private scanTimer: { cancel(): void } | undefined;
  private stopped = false;
  private scans = 0;
  private scanning: Promise<void> | undefined;
  private rescan = false;

  constructor(private readonly o: DispatcherOptions) {
    this.firing = new Firing({
      deliveries: o.deliveries,
      clock: o.clock,
      ...(o.timers ? { timers: o.timers } : {}),
      limits: o.limits,
      failed: (err) => this.failed(err),
    });
  }

  /** The timers of the dispatcher's clock: its scan. */
  private get timers(): Timers {
    return this.o.timers ?? systemTimers;
  }

  /** Delivery attempts firing in this process. */
  get inFlight(): number {
    return this.firing.inFlight;
  }

  /** Due delivery attempts left unclaimed because their account's cap or the process's cap is reached. */
  get waiting(): number {
    return this.firing.waiting;
  }

  async start(): Promise<void> {
    await this.o.notifications.subscribe(DUE_CHANNEL, {
      payload: (payload) => {
        const [id, due] = payload.split(',');
        if (id && due) this.firing.announced(id, Number(due));
      },
      // Announcements made while the connection was down are lost, and the member lock was taken again (under a new
      // number): the others are told, and this worker scans now.
      reconnected: () => void this.joined(),
    });
    // A worker came or went: shares change, and this worker reads what is due in its own.
    await this.o.notifications.subscribe(MEMBERS_CHANNEL, { payload: () => void this.scanNow() });
    await announceMember(this.o.store.sql);
    void this.scanLoop();
  }

  /** The others learn of this worker's member lock at once (they would at their next scan), so shares change together. */
  private async joined(): Promise<void> {
    try {
      await announceMember(this.o.store.sql);
    } catch (err) {
      if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, 'announcing this worker failed');
    }
    await this.scanNow();
  }

  /** Stops the scan and the firing loop, then waits for attempts in flight (their rows stay durable regardless). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.scanTimer?.cancel();
    // The others take this worker's share now, not once its attempts in flight are done.
    const left = this.o.notifications.leave(MEMBERS_CHANNEL).catch(() => undefined);
    await Promise.all([this.firing.stop(timeoutMs), left]);
  }

  private failed(err: unknown): void {
    if (!this.o.availability?.absorbs(err))
      this.o.logger.error({ err }, 'delivery work failed; the attempt stays due in its row');
  }

  /**
   * Fires due attempts a destination held, now that it may let them through (a destination wake): each is claimed by
   * id; should this process die first, they are still due and their worker's held sweep fires them.
   */
  fireHeld(actionIds: readonly string[], accountId: string): void {
    this.firing.fireHeld(actionIds.map((id) => ({ id, accountId })));
  }

  private async scanLoop(): Promise<void> {
    if (this.stopped) return;
    await this.scanNow();
    if (!this.stopped)
      this.scanTimer = this.timers.after(this.o.scanIntervalMs ?? 1000, () => void this.scanLoop());
  }

  /** One scan at a time; a scan asked for meanwhile runs once the current one ends. */
  private async scanNow(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      do {
        this.rescan = false;
        try {
          await this.scan();
        } catch (err) {
          if (!this.o.availability?.absorbs(err)) this.o.logger.warn({ err }, 'due scan failed');
        }
      } while (this.rescan && !this.stopped);
    })();
    try {
      await this.scanning;
    } finally {
      this.scanning = undefined;
    }
  }

  /**
   * One statement: reads the live workers (this worker's slot among them; none while its member lock is not held, and
   * no claims then), promotes the share's `scheduled` attempts entering the window, and reads the share's earliest
   * due time, which wakes the firing loop (at once, for what is due already).
   */
  private async scan(): Promise<void> {
    const me = this.o.notifications.member();
    if (me === null) return this.firing.setShare(null);
    const now = this.o.clock();
    const overdueBefore = this.o.deliveries.overdueBefore(now);
    const { nextDue, members } = await this.o.scheduler.promoteEntering(this.o.store, {
      member: me,
      overdueBefore,
    });
    const slot = members?.indexOf(me) ?? -1;
    const share = slot < 0 ? null : { slots: members!.length, slot };
    this.firing.setShare(share);
    if (!share || this.stopped) return;
    if (nextDue) this.firing.due(nextDue.getTime());
    // Leases are checked every few scans; an expired one means a worker died mid-attempt.
    this.scans += 1;
    if (this.scans % 5 === 0) {
      await this.o.deliveries.sweepExpiredLeases();
      this.firing.fireHeld(await heldDue(this.o.store.sql, now, { ...share, overdueBefore }));
    }
  }
}
