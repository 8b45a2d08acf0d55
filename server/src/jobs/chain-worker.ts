import type { Logger } from 'pino';
import type { ChainEngine } from '../app/chains/advance.js';
import { systemTimers } from '../app/clock.js';
import type { Clock, Store, Timers } from '../app/ports.js';
import { CHAIN_DUE_CHANNEL, chainsToAdvance, postponeChain } from '../persistence/chains.js';
import type { Notifications } from '../persistence/notifications.js';

/** How often due running steps are looked for; a delay is taken up within about this long of its due time. */
const CHAIN_SCAN_INTERVAL_MS = 200;
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
  private stopped = false;
  private running: Promise<void> | undefined;
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
    // A settlement notified while the connection was down is found by the scan.
    await this.o.notifications.subscribe(CHAIN_DUE_CHANNEL, { payload: (chainId) => this.advance(chainId) });
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

  private loop(): void {
    if (this.stopped) return;
    this.running = this.scan()
      .catch((err: unknown) => {
        if (!this.quiet(err)) this.o.logger.warn({ err }, 'chain scan failed');
      })
      .finally(() => {
        if (!this.stopped)
          this.timer = (this.o.timers ?? systemTimers).after(
            this.o.intervalMs ?? CHAIN_SCAN_INTERVAL_MS,
            () => this.loop(),
          );
      });
  }

  private async scan(): Promise<void> {
    for (;;) {
      const ids = await chainsToAdvance(this.o.store.sql, this.o.clock(), BATCH);
      let failures = 0;
      for (const id of new Set(ids)) {
        if (this.stopped) return;
        await this.o.engine.advance(id).catch(async (err: unknown) => {
          failures++;
          await this.failed(id, err);
        });
      }
      // A batch that only failed is not fetched again in this pass (the back-off may not have been written).
      if (ids.length < BATCH || failures === new Set(ids).size) return;
    }
  }
}
