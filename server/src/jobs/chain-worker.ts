import type { Logger } from 'pino';
import type { ChainEngine } from '../app/chains/advance.js';
import type { Clock, Store } from '../app/ports.js';
import { chainsToAdvance } from '../persistence/chains.js';

/** How often running steps are checked; a delay or a settled action is taken up within about this long. */
export const CHAIN_SCAN_INTERVAL_MS = 200;
const BATCH = 100;

/**
 * Drives chains: finds running steps that are due (a delay elapsed, or their action reached a final state, which a
 * trigger on `actions` records on the step; persistence's `chainsToAdvance`) and advances their chains. The database is the only trigger: an action's final state commits
 * with the transaction that settled it, so a crash anywhere loses nothing, and a restart picks up where it stood.
 */
export class ChainWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly o: {
      store: Store;
      engine: ChainEngine;
      clock: Clock;
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  start(): void {
    this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private loop(): void {
    if (this.stopped) return;
    this.running = this.scan()
      .catch((err: unknown) => this.o.logger.warn({ err }, 'chain scan failed'))
      .finally(() => {
        if (!this.stopped)
          this.timer = setTimeout(() => this.loop(), this.o.intervalMs ?? CHAIN_SCAN_INTERVAL_MS);
      });
  }

  private async scan(): Promise<void> {
    for (;;) {
      const ids = await chainsToAdvance(this.o.store.sql, this.o.clock(), BATCH);
      for (const id of new Set(ids)) {
        if (this.stopped) return;
        await this.o.engine.advance(id).catch((err: unknown) => {
          this.o.logger.error({ err, chainId: id }, 'chain advance failed; retried on the next scan');
        });
      }
      if (ids.length < BATCH) return;
    }
  }
}
