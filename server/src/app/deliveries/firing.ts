import { ownerSlot } from '../../persistence/workers.js';
import { realDeadline, systemTimers } from '../clock.js';
import type { Clock, Timers } from '../ports.js';
import { Admission, type AdmissionLimits } from './admission.js';
import { MAX_CLAIM_AHEAD_MS } from '../../domain/action/due-horizon.js';
import type { Deliveries, Share } from './deliver.js';

/**
 * The worker wakes a lead before a due time, so the claim's round trip is made ahead, and claims what falls due within
 * the lead and a window after it (each attempt is still sent at its due time, never before: `Deliveries.deliver` waits
 * for it). The lead is twice the slowest recent claim (a loaded machine or database makes it longer), 10 to 50 ms:
 * measured, the claim's round trip was most of the lateness above the event loop's own (docs/performance.md). The
 * window lets one claim serve the attempts of the next moments together. Both stay short: a claimed attempt is
 * `executing`, which a cancel no longer stops.
 */
const MIN_LEAD_MS = 10;
const MAX_LEAD_MS = 50;
const CLAIM_WINDOW_MS = 20;
if (MAX_LEAD_MS + CLAIM_WINDOW_MS > MAX_CLAIM_AHEAD_MS) throw new Error('claims would reach too far ahead');
/**
 * A claim reads the due index a little past its limit, so when it was cut short with slots still free, the accounts
 * at the head of the queue took their room, and others may wait behind them: the loop claims again at once, with the
 * full accounts left out of the reading, at most this often (one account alone would make each such claim empty).
 */
const LOOK_PAST_MS = 100;
/** A claim that left due attempts to other workers' locks, with nothing of its own in flight, looks again after this. */
const LOCKED_BACKOFF_MS = 50;
/**
 * While attempts are left due for want of room, slots freed one by one are claimed together: once this many are free,
 * or REFILL_MS after the first, whichever comes first. Fewer, larger claims cost both processes less (a round trip
 * costs more than the rows it carries on this loopback), and the requests still out keep the pipe full meanwhile.
 */
const REFILL_BATCH = 32;
const REFILL_MS = 5;
/** After a failed claim (the database away), the next try. */
const FAILED_BACKOFF_MS = 1_000;

export interface FiringOptions {
  deliveries: Deliveries;
  clock: Clock;
  /** Timers on `clock`; the system's when absent. */
  timers?: Timers;
  /** Caps on attempts in flight here (SCHED_DELIVERY_CONCURRENCY, SCHED_DELIVERY_ACCOUNT_CONCURRENCY). */
  limits: AdmissionLimits;
  /** A claim or an attempt failed; the attempt stays durable in its row (logged by the caller). */
  failed(err: unknown): void;
}

/**
 * A worker's firing loop over its share of the due set (its slot among the live workers: persistence/workers.ts).
 * It sleeps until the earliest due time of its share, less a claim's lead; then claims, in one statement, what is
 * due of its share as far as its slots allow (`Deliveries.claimShare`: round-robin between accounts, SKIP LOCKED), and
 * delivers each attempt at its due time. The claim's answer says when the share is next due, so one timer is armed,
 * whatever the number of attempts; a slot freed while attempts are left due claims again, one claim at a time, so a
 * burst is claimed in batches as large as the slots freed meanwhile. It learns of earlier due times from the
 * triggers (jobs/dispatcher.ts: NOTIFY, the scan), and claims nothing when nothing of its share is due: an idle worker
 * makes no claim, and two workers do not claim the same attempt (each has its share).
 */
export class Firing {
  private share: Share | null = null;
  private wakeAt = Number.POSITIVE_INFINITY;
  private wakeTimer: { cancel(): void } | undefined;
  /** Due times heard of while a claim was under way: its answer, read before, cannot know them. */
  private heard = Number.POSITIVE_INFINITY;
  private claiming = false;
  private again = false;
  /** Due attempts were left for want of room: a freed slot claims again. */
  private backlog = false;
  private left = 0;
  private refilling: { cancel(): void } | undefined;
  /** Slots freed since the last claim began. */
  private freed = 0;
  /** The slowest recent claim, decaying (milliseconds). */
  private claimMs = 0;
  private lookedPast = Number.NEGATIVE_INFINITY;
  private stopped = false;
  private readonly slots: Admission;
  private readonly running = new Set<Promise<unknown>>();
  /** Attempts held by their host's flow control, each looked at again at its time. */
  private readonly retries = new Map<string, { cancel(): void }>();

  constructor(private readonly o: FiringOptions) {
    this.slots = new Admission(o.limits);
  }

  private get timers(): Timers {
    return this.o.timers ?? systemTimers;
  }

  /** Delivery attempts in flight here. */
  get inFlight(): number {
    return this.slots.inFlight;
  }

  /** Due attempts the last claim left unclaimed for want of room (the per-account or the process cap). */
  get waiting(): number {
    return this.left;
  }

  /**
   * The worker's share (its slot among the live workers); null while it is not a member: it claims nothing then. A
   * new share forgets the wake-up of the old one: the caller reads the new share's earliest due time (`due`).
   */
  setShare(share: Share | null): void {
    const same = share && this.share && share.slots === this.share.slots && share.slot === this.share.slot;
    if (same || (!share && !this.share)) return;
    this.share = share;
    this.wakeTimer?.cancel();
    this.wakeTimer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  /** An attempt of `actionId` falls due at `dueMs` (announced by NOTIFY): wakes in time if it is of this share. */
  announced(actionId: string, dueMs: number): void {
    if (this.share && ownerSlot(actionId, this.share.slots) === this.share.slot) this.due(dueMs);
  }

  /** Something of the share falls due at `dueMs` (the scan's reading of the due index, or an announcement). */
  due(dueMs: number): void {
    if (this.stopped) return;
    if (this.claiming) this.heard = Math.min(this.heard, dueMs);
    this.wakeBy(dueMs - this.lead);
  }

  /** How long before a due time the worker wakes to claim it. */
  private get lead(): number {
    return Math.min(MAX_LEAD_MS, Math.max(MIN_LEAD_MS, Math.ceil(2 * this.claimMs)));
  }

  /** Held attempts of the share (a paused host, flow control) to look at again: each is fired by id. */
  fireHeld(attempts: readonly { id: string; accountId: string }[]): void {
    for (const a of attempts) if (!this.retries.has(a.id)) this.fireOne(a.id, a.accountId);
  }

  /** Stops claiming, then waits up to `timeoutMs` for the attempts in flight (their rows stay durable regardless). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.wakeTimer?.cancel();
    this.refilling?.cancel();
    for (const t of this.retries.values()) t.cancel();
    this.retries.clear();
    await Promise.race([Promise.allSettled([...this.running]), realDeadline(timeoutMs)]);
  }

  private wakeBy(at: number): void {
    if (at >= this.wakeAt) return;
    this.wakeTimer?.cancel();
    this.wakeAt = at;
    this.wakeTimer = this.timers.after(Math.max(0, at - this.o.clock().getTime()), () => {
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.wakeTimer = undefined;
      this.claim();
    });
  }

  private claim(): void {
    if (this.stopped || !this.share) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    void this.claimRounds().finally(() => {
      this.claiming = false;
    });
  }

  private async claimRounds(): Promise<void> {
    for (;;) {
      this.again = false;
      const share = this.share;
      if (!share || this.stopped) return;
      const limit = this.slots.free;
      if (limit <= 0) {
        this.backlog = true;
        return;
      }
      this.heard = Number.POSITIVE_INFINITY;
      this.freed = 0;
      let claim: Awaited<ReturnType<Deliveries['claimShare']>>;
      const started = this.o.clock().getTime();
      try {
        claim = await this.o.deliveries.claimShare({
          limit,
          aheadMs: this.lead + CLAIM_WINDOW_MS,
          share,
          rooms: this.slots.rooms(),
          perAccount: this.slots.limits.perAccount,
        });
        this.claimMs = Math.max(this.o.clock().getTime() - started, this.claimMs * 0.9);
      } catch (err) {
        this.o.failed(err);
        this.wakeBy(this.o.clock().getTime() + FAILED_BACKOFF_MS);
        return;
      }
      for (const c of claim.claimed) {
        this.slots.take(c.row.account_id);
        this.run(c.row.account_id, (sent) => this.o.deliveries.deliver(c, sent));
      }
      for (const c of claim.careful) this.fireOne(c.id, c.accountId);
      this.left = claim.leftDue;
      this.backlog = claim.leftDue > 0;
      // The answer's next due time replaces the wake-up this claim consumed; one heard meanwhile may be earlier.
      this.wakeTimer?.cancel();
      this.wakeTimer = undefined;
      this.wakeAt = Number.POSITIVE_INFINITY;
      const next = Math.min(claim.nextDue?.getTime() ?? Number.POSITIVE_INFINITY, this.heard);
      if (Number.isFinite(next)) this.wakeBy(next - this.lead);
      if (this.again) continue;
      // What was left for want of room is claimed as slots free (`refill`).
      const now = this.o.clock().getTime();
      if (claim.more && this.slots.free > 0 && now - this.lookedPast >= LOOK_PAST_MS) {
        this.lookedPast = now;
        continue;
      }
      // Left due with nothing of ours in flight (so no freed slot will claim again): another worker holds those rows.
      if (this.backlog && this.slots.inFlight === 0)
        this.wakeBy(this.o.clock().getTime() + LOCKED_BACKOFF_MS);
      return;
    }
  }

  /** An attempt of the careful path, or held, fired by id when a slot is free; a held one is looked at again later. */
  private fireOne(id: string, accountId: string): void {
    if (this.stopped) return;
    this.retries.get(id)?.cancel();
    this.retries.delete(id);
    if (!this.slots.tryTake(accountId)) {
      // No room now: still due in its row, so the next claim or the held sweep comes back to it.
      this.backlog = true;
      return;
    }
    this.run(accountId, async () => {
      const retryAt = await this.o.deliveries.fire(id);
      if (retryAt && !this.stopped)
        this.retries.set(
          id,
          this.timers.after(Math.max(0, retryAt.getTime() - this.o.clock().getTime()), () => {
            this.retries.delete(id);
            this.fireOne(id, accountId);
          }),
        );
    });
  }

  /** Runs an attempt in its slot; its account's room is free again once its request is done (`sent`). */
  private run(accountId: string, work: (sent: () => void) => Promise<unknown>): void {
    let sent = false;
    const p = work(() => {
      sent = true;
      this.slots.sent(accountId);
      this.refill();
    })
      .catch((err: unknown) => this.o.failed(err))
      .finally(() => {
        this.running.delete(p);
        this.slots.release(accountId, sent);
        // Freed already when its request was done (or now, when it never went out).
        if (!sent || this.slots.free === 1) this.refill();
      });
    this.running.add(p);
  }

  /** A slot was freed: claims again if attempts were left due for want of room (coalesced, see REFILL_BATCH). */
  private refill(): void {
    if (!this.backlog) return;
    this.freed += 1;
    if (this.freed >= REFILL_BATCH || this.slots.out < REFILL_BATCH) {
      this.refilling?.cancel();
      this.refilling = undefined;
      this.claim();
      return;
    }
    this.refilling ??= this.timers.after(REFILL_MS, () => {
      this.refilling = undefined;
      if (this.backlog) this.claim();
    });
  }
}
