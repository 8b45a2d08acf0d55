/** Caps on attempts in flight in one worker process: in total, and per account. */
export interface AdmissionLimits {
  total: number;
  perAccount: number;
}

/**
 * The slots of a worker's delivery attempts, so one account's burst cannot take every slot of a worker. A claim asks
 * for no more than the free slots and gives each account no more than its room (`rooms`); the claim statement
 * serves the accounts round-robin (persistence/deliveries.ts), and what does not fit stays due and unclaimed in its
 * row, so its lease does not run. An attempt holds its account's room while its request is out (`sent` gives it
 * back) and its process slot until it is recorded too (`release`). No I/O and no clock.
 */
export class Admission {
  private running = 0;
  /** Requests out per account. */
  private readonly runningBy = new Map<string, number>();

  constructor(readonly limits: AdmissionLimits) {}

  get inFlight(): number {
    return this.running;
  }

  /** Requests out (attempts not yet `sent`). */
  get out(): number {
    let n = 0;
    for (const count of this.runningBy.values()) n += count;
    return n;
  }

  /** Slots free in total. */
  get free(): number {
    return Math.max(0, this.limits.total - this.running);
  }

  /** The accounts with attempts in flight and the room each has left (0: full). Any other account has `perAccount`. */
  rooms(): Map<string, number> {
    const rooms = new Map<string, number>();
    for (const [account, n] of this.runningBy) rooms.set(account, Math.max(0, this.limits.perAccount - n));
    return rooms;
  }

  /** Takes a slot for one of `account`'s attempts when both caps allow it. */
  tryTake(account: string): boolean {
    if (this.running >= this.limits.total || (this.runningBy.get(account) ?? 0) >= this.limits.perAccount)
      return false;
    this.take(account);
    return true;
  }

  /** Takes a slot the claim already fitted within the caps. */
  take(account: string): void {
    this.running += 1;
    this.runningBy.set(account, (this.runningBy.get(account) ?? 0) + 1);
  }

  /** The request of one of `account`'s attempts is done: the account's room is free again (the slot is not yet). */
  sent(account: string): void {
    const left = (this.runningBy.get(account) ?? 1) - 1;
    if (left > 0) this.runningBy.set(account, left);
    else this.runningBy.delete(account);
  }

  /** One of `account`'s attempts ended (`sent` already, or not). */
  release(account: string, sent = false): void {
    if (!sent) this.sent(account);
    this.running = Math.max(0, this.running - 1);
  }
}
