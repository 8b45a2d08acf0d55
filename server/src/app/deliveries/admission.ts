/** Caps on attempts in flight in one worker process: in total, and per account. */
export interface AdmissionLimits {
  total: number;
  perAccount: number;
}

/**
 * Which delivery attempts may start now, so one account's burst cannot take every slot of a worker. An attempt
 * over a cap waits here, unclaimed, so its lease does not run; when a slot frees, the waiting accounts are served
 * round-robin, so one account's flood queues behind its own cap while other accounts' attempts go ahead. No I/O and no clock: the caller starts what it is told to.
 */
export class Admission<T> {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Waiting attempts by account; the map's order is the rotation (an account served moves to the back). */
  private readonly waiting = new Map<string, T[]>();
  private waitingCount = 0;

  constructor(private readonly limits: AdmissionLimits) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waitingCount;
  }

  /** True: start `item` now (it is counted as running). False: it waits and comes back from `release`. */
  offer(account: string, item: T): boolean {
    if (!this.waiting.has(account) && this.fits(account)) {
      this.start(account);
      return true;
    }
    const queue = this.waiting.get(account);
    if (queue) queue.push(item);
    else this.waiting.set(account, [item]);
    this.waitingCount += 1;
    return false;
  }

  /** One of `account`'s attempts ended; answers the waiting attempts to start now (counted as running). */
  release(account: string): { account: string; item: T }[] {
    const left = (this.runningBy.get(account) ?? 1) - 1;
    if (left > 0) this.runningBy.set(account, left);
    else this.runningBy.delete(account);
    this.running = Math.max(0, this.running - 1);

    const started: { account: string; item: T }[] = [];
    let progress = true;
    while (progress && this.running < this.limits.total) {
      progress = false;
      for (const [next, queue] of this.waiting) {
        if (!this.fits(next)) continue;
        const item = queue.shift()!;
        this.waitingCount -= 1;
        // Served: to the back of the rotation, or out of it when nothing of it waits.
        this.waiting.delete(next);
        if (queue.length > 0) this.waiting.set(next, queue);
        this.start(next);
        started.push({ account: next, item });
        progress = true;
        break;
      }
    }
    return started;
  }

  private fits(account: string): boolean {
    return this.running < this.limits.total && (this.runningBy.get(account) ?? 0) < this.limits.perAccount;
  }

  private start(account: string): void {
    this.running += 1;
    this.runningBy.set(account, (this.runningBy.get(account) ?? 0) + 1);
  }
}
