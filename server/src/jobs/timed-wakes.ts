import type { Logger } from 'pino';
import { systemClock, systemTimers } from '../app/clock.js';
import type { Clock, Store, Timers } from '../app/ports.js';
import { JOB_DUE_CHANNEL, nextJobsDue } from '../persistence/job-wakes.js';
import type { Notifications } from '../persistence/notifications.js';
import { PeriodicLoop } from './periodic.js';

/**
 * How often every timed queue's next jobs are read when nothing else wakes the read: the safety net. A job sent due
 * sooner than `TIMED_ANNOUNCE_MS` is announced at its commit instead, so the net only has to see the others, which
 * it does at least one read ahead of their time.
 */
const TIMED_READ_MS = 2_500;
/** A read sets a wake-up for each queue's next job due within this (two reads: a read may come a little late). */
const TIMED_AHEAD_MS = 2 * TIMED_READ_MS;
/** A delayed job due within this of its send is announced (persistence/job-wakes.ts `announceJob`). */
export const TIMED_ANNOUNCE_MS = TIMED_AHEAD_MS;

/**
 * The wake-ups of the timed queues' workers (jobs/queue.ts `TIMED_QUEUES`). Each queue has at most one timer,
 * at the earliest job this process knows of; it wakes the queue's worker (pg-boss's `notifyWorker`: it fetches at
 * once) and reads again at once, which sets the timer of the queue's next job. What it learns of jobs:
 * - a job sent due soon, announced at its sender's commit (`JOB_DUE_CHANNEL`), from any process;
 * - a job retried after its handler failed in this process (`expect`: pg-boss's fixed retry delay);
 * - every `TIMED_READ_MS`, one statement reading each queue's next job (and whether one is due already: the worker
 *   missed it or was busy), which finds jobs sent long ahead before they fall due, and anything an announcement
 *   missed (the LISTEN connection down, another process's failed handler) at most that late.
 * A read that fails leaves the workers' backstop polls.
 */
export class TimedWakes {
  private readonly workers = new Map<string, string>();
  private readonly timers = new Map<string, { at: number; cancel(): void }>();
  private readonly loop: PeriodicLoop<void>;
  private started = false;

  constructor(
    private readonly o: {
      store: Store;
      /** Wakes a worker of pg-boss by its id. */
      wake: (workerId: string) => void;
      /** The process's LISTEN connection, where announcements arrive; without it, only the reads find jobs. */
      listen?: () => Promise<Notifications>;
      availability?: { absorbs(err: unknown): boolean };
      logger: Logger;
      clock?: Clock;
      timers?: Timers;
    },
  ) {
    this.loop = new PeriodicLoop({
      run: () => this.read(),
      what: 'reading the next timed jobs',
      intervalMs: TIMED_READ_MS,
      logger: o.logger,
      timers: this.clockTimers,
      ...(o.availability ? { availability: o.availability } : {}),
    });
  }

  private get clockTimers(): Timers {
    return this.o.timers ?? systemTimers;
  }

  private now(): number {
    return (this.o.clock ?? systemClock)().getTime();
  }

  add(queue: string, workerId: string): void {
    this.workers.set(queue, workerId);
    if (this.started) return;
    this.started = true;
    this.loop.start();
    void this.subscribe();
  }

  remove(queue: string): void {
    this.workers.delete(queue);
    this.timers.get(queue)?.cancel();
    this.timers.delete(queue);
  }

  stop(): void {
    // An announcement heard after this sets no timer (it would keep a stopping process alive).
    this.workers.clear();
    void this.loop.stop();
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }

  /** A job of `queue` may be fetched from `atMs` on: its worker is woken then, unless it already is earlier. */
  expect(queue: string, atMs: number): void {
    if (!this.workers.has(queue)) return;
    const armed = this.timers.get(queue);
    if (armed && armed.at <= atMs) return;
    armed?.cancel();
    const timer = this.clockTimers.after(atMs - this.now(), () => this.fire(queue));
    this.timers.set(queue, { at: atMs, cancel: () => timer.cancel() });
  }

  /** A queue's timer is due (a timer replaced was cancelled first, so this is the queue's current one). */
  private fire(queue: string): void {
    this.timers.delete(queue);
    this.wakeNow(queue);
    // The queue's next job, whose timer this one held back: read now.
    this.loop.now();
  }

  private wakeNow(queue: string): void {
    const id = this.workers.get(queue);
    if (id) this.o.wake(id);
  }

  private async subscribe(): Promise<void> {
    if (!this.o.listen) return;
    try {
      const notifications = await this.o.listen();
      await notifications.subscribe(JOB_DUE_CHANNEL, {
        payload: (payload) => {
          const comma = payload.lastIndexOf(',');
          const dueMs = Number(payload.slice(comma + 1));
          // A millisecond after: pg-boss's fetch takes a job whose time has come, not one due this instant.
          if (comma > 0 && Number.isFinite(dueMs)) this.expect(payload.slice(0, comma), dueMs + 1);
        },
        // Announcements made while the connection was down are lost: read now.
        reconnected: () => this.loop.now(),
      });
    } catch (err) {
      if (!this.o.availability?.absorbs(err))
        this.o.logger.warn({ err }, 'listening for timed jobs failed; their reads stay');
    }
  }

  private async read(): Promise<void> {
    if (this.workers.size === 0) return;
    const due = await nextJobsDue(this.o.store.sql, [...this.workers.keys()]);
    const now = this.now();
    for (const [queue, next] of due) {
      if (next.dueNow) this.wakeNow(queue);
      // What falls due before the read after next: a later read sets the timer of a later job.
      if (next.nextInMs !== null && next.nextInMs < TIMED_AHEAD_MS)
        this.expect(queue, now + next.nextInMs + 1);
    }
  }
}
