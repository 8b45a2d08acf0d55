import type { Logger } from 'pino';
import type { ChainEngine } from '../app/chains/advance.js';
import { systemTimers } from '../app/clock.js';
import type { Clock, Store, Timers } from '../app/ports.js';
import { CHAIN_DUE_CHANNEL, chainsToAdvance, postponeChain } from '../persistence/chains.js';
import type { Notifications } from '../persistence/notifications.js';

/**
 * How often due running steps are looked for when nothing woke the worker sooner: a settled step's action and a delay
 * that starts are announced at their commit, and each scan sets a timer for the earliest due time still ahead, so this
 * is only the safety net for a worker that died mid-advance or a step another process started unannounced.
 */
const CHAIN_SCAN_INTERVAL_MS = 2_000;
const BATCH = 100;
/** How long a chain whose advance failed waits before the scan tries it again, so it cannot hold up other chains. */
export const CHAIN_RETRY_BACKOFF_MS = 30_000;

/**
 * Drives chains: finds running steps that are due (a delay elapsed, or their action reached a final state, which a
 * trigger on `actions` records on the step; persistence's `chainsToAdvance`) and advances their chains. The scan is
 * the durable trigger: the step's state commits with the transaction that settled its action, so a crash anywhere
 * loses nothing. The same trigger NOTIFYs the chain's id at commit, so a listening worker advances it at once.
 */
export class ChainWorker {
  private timer: { cancel(): void } | undefined;
  /** When the timer fires (ms): the next scan, or sooner the earliest due time known. */
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** The soonest wake-up asked for while a scan ran (ms). */
  private wanted = Number.POSITIVE_INFINITY;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly o: {
      store: Store;
      engine: ChainEngine;
      clock: Clock;
      /** Timers on `clock` (the scan's); the system's when absent. */
      timers?: Timers;
      logger: Logger;
      /** The process's LISTEN connection (persistence/notifications.ts). */
      notifications: Notifications;
      /** Records database faults (an outage is logged once there); other errors are logged here. */
      availability?: { absorbs(err: unknown): boolean };
      intervalMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    await this.listen();
    this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
    await Promise.allSettled([...this.inflight]);
  }

  private async listen(): Promise<void> {
    await this.o.notifications.subscribe(CHAIN_DUE_CHANNEL, {
      // `chainId` (its step's action settled: due now) or `chainId,dueMs` (a delay started: due then).
      payload: (payload) => {
        const [chainId, due] = payload.split(',');
        if (due === undefined) this.advance(chainId ?? '');
        else this.wakeAt(Number(due));
      },
      // What was announced while the connection was down is found by a scan now.
      reconnected: () => this.wakeAt(0),
    });
  }

  /** A database fault is recorded (and logged once) by the availability tracker. */
  private quiet(err: unknown): boolean {
    return this.o.availability?.absorbs(err) ?? false;
  }

  /**
   * A failed advance puts the chain off (unless the database itself is down, which the availability tracker
   * handles), so that one chain failing again and again never holds the scan on itself.
   */
  private async failed(chainId: string, err: unknown): Promise<void> {
    if (this.quiet(err)) return;
    this.o.logger.error({ err, chainId }, 'chain advance failed; retried after a back-off');
    const now = this.o.clock();
    await postponeChain(
      this.o.store.sql,
      chainId,
      now,
      new Date(now.getTime() + CHAIN_RETRY_BACKOFF_MS),
    ).catch((e: unknown) => {
      if (!this.quiet(e)) this.o.logger.warn({ err: e, chainId }, 'could not put off a failing chain');
    });
  }

  private advance(chainId: string): void {
    if (this.stopped || !chainId) return;
    const work = this.o.engine.advance(chainId).catch((err: unknown) => this.failed(chainId, err));
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }

  /** Scans at `at` (ms) unless a scan is set for sooner already. */
  private wakeAt(at: number): void {
    if (this.stopped || Number.isNaN(at)) return;
    // The scan under way sets the next timer as it ends, for the soonest it knows of, this too.
    if (this.running) this.wanted = Math.min(this.wanted, at);
    else if (at < this.timerAt) this.arm(at);
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = (this.o.timers ?? systemTimers).after(Math.max(0, at - this.o.clock().getTime()), () => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.loop();
    });
  }

  private loop(): void {
    if (this.stopped || this.running) return;
    this.timer?.cancel();
    this.timerAt = Number.POSITIVE_INFINITY;
    this.wanted = Number.POSITIVE_INFINITY;
    let nextDue = Number.POSITIVE_INFINITY;
    this.running = this.scan()
      .then((next) => {
        if (next) nextDue = next.getTime();
      })
      .catch((err: unknown) => {
        if (!this.quiet(err)) this.o.logger.warn({ err }, 'chain scan failed');
      })
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const safetyNet = this.o.clock().getTime() + (this.o.intervalMs ?? CHAIN_SCAN_INTERVAL_MS);
        this.arm(Math.min(safetyNet, nextDue, this.wanted));
      });
  }

  /** Advances every due chain; answers the earliest due time still ahead. */
  private async scan(): Promise<Date | null> {
    for (;;) {
      const { chainIds, nextDue } = await chainsToAdvance(this.o.store.sql, this.o.clock(), BATCH);
      const ids = new Set(chainIds);
      let failures = 0;
      for (const id of ids) {
        if (this.stopped) return null;
        await this.o.engine.advance(id).catch(async (err: unknown) => {
          failures++;
          await this.failed(id, err);
        });
      }
      // A batch that only failed is not fetched again in this pass (the back-off may not have been written).
      if (chainIds.length < BATCH || failures === ids.size) return nextDue;
    }
  }
}
