import { type ClaimFound, claimDue } from '../../persistence/delivery-claims.js';
import { claimDueShare } from '../../persistence/delivery-scan.js';
import { TickBatch } from '../tick-batch.js';
import type { Claimed, DeliveryPorts, Held } from './attempt.js';
import { CarefulClaim, CLAIM_TOLERANCE_MS } from './claim.js';
import { AttemptRecorder } from './record.js';
import { MAX_CLAIM_AHEAD_MS } from '../../domain/action/due-horizon.js';
import { AttemptSender } from './send.js';

export type { Claimed, DeliveryPorts } from './attempt.js';

/** Outgoing requests time out after 30 s (the interface's figure). */
const REQUEST_TIMEOUT_MS = 30_000;
/** A claimed attempt is owned for its request timeout plus this margin; past it, the lease sweep hands it on. */
const LEASE_MARGIN_MS = 15_000;
/** Floors under SCHED_TIME_SCALE, so scaled tests still give a loopback request time to answer. */
const MIN_TIMEOUT_MS = 2_000;
const MIN_LEASE_MARGIN_MS = 3_000;

/** What a worker's claim of its share took (see `Deliveries.claimShare`). */
export interface ShareClaim {
  claimed: Claimed[];
  /** Due attempts the careful path must look at (`fire`): a host with flow control, a coordination rule. */
  careful: { id: string; accountId: string }[];
  /** The earliest due time of the share beyond what this claim could take, or null. */
  nextDue: Date | null;
  /** Due attempts left for want of room (or locked by another worker's claim). */
  leftDue: number;
  /** Whether the claim read as many due rows as it may (others may be due behind them). */
  more: boolean;
}

/** The part of the due set a worker claims from: its slot among the live workers (persistence/workers.ts). */
export interface Share {
  slots: number;
  slot: number;
}

/** Attempts overdue by this much are claimed by any worker (the floor under SCHED_TIME_SCALE: see `overdueBefore`). */
const OVERDUE_GRACE_MS = 5_000;
const MIN_OVERDUE_GRACE_MS = 2_000;

/**
 * Delivery of an action's due attempt, as three stages over one attempt: claim (the one-statement claim here, the
 * careful path in claim.ts), send (send.ts, outside any transaction) and record (record.ts, which applies the outcome
 * through the state table and schedules what follows: a retry, the next occurrence, callbacks). A worker that dies
 * mid-attempt leaves a lease that expires; `sweepExpiredLeases` then hands the action on. Every entry point is
 * idempotent: jobs/ may call `fire` from several triggers at once.
 */
export class Deliveries {
  /** The claims of one turn of the event loop, in one statement. */
  private readonly claims = new TickBatch<string, ClaimFound | undefined>(async (ids) => {
    const now = this.p.clock();
    const found = await claimDue((this.p.claims ?? this.p.store).sql, {
      actionIds: ids,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      dueBy: new Date(now.getTime() + CLAIM_TOLERANCE_MS),
      now,
    });
    // One claim, one owner: should two triggers of one action share a batch, only the first gets the row.
    const answered = new Set<string>();
    return ids.map((id) => {
      if (answered.has(id)) return undefined;
      answered.add(id);
      return found.get(id);
    });
  });

  private readonly careful: CarefulClaim;
  private readonly sender: AttemptSender;
  private readonly recorder: AttemptRecorder;

  constructor(private readonly p: DeliveryPorts) {
    this.careful = new CarefulClaim(p);
    this.sender = new AttemptSender(p);
    this.recorder = new AttemptRecorder(p);
  }

  /** 30 s, scaled in tests (never below 2 s). */
  requestTimeoutMs(): number {
    return this.p.waits.wait(REQUEST_TIMEOUT_MS, MIN_TIMEOUT_MS);
  }

  /** Always longer than the request timeout: a live attempt is never taken over. */
  leaseMs(): number {
    return this.requestTimeoutMs() + this.p.waits.wait(LEASE_MARGIN_MS, MIN_LEASE_MARGIN_MS);
  }

  /** Attempts due before this are any worker's to claim: their owner may have died before the others noticed. */
  overdueBefore(now: Date): Date {
    return new Date(now.getTime() - this.p.waits.wait(OVERDUE_GRACE_MS, MIN_OVERDUE_GRACE_MS));
  }

  /**
   * Fires the action's due attempt, if it is still due and nobody else holds it. Answers when to fire it again when
   * its host's flow control holds it (no attempt spent; the row stays due, so any worker's overdue sweep would
   * too), else null.
   */
  async fire(actionId: string): Promise<Date | null> {
    const claimed = await this.claim(actionId);
    if (!claimed) return null;
    if ('retryAt' in claimed) return claimed.retryAt;
    await this.deliver(claimed);
    return null;
  }

  /**
   * Claims, in one statement, up to `limit` of the due attempts of a worker's share that are due within the claim
   * tolerance, each account given at most its room (`rooms`: the accounts with attempts in flight here and the room
   * each has left; any other account may take `perAccount`). The claimed attempts are this worker's to `deliver`.
   */
  async claimShare(c: {
    limit: number;
    /** Claims what falls due within this much (the attempt is sent at its due time). */
    aheadMs: number;
    share: Share;
    rooms: ReadonlyMap<string, number>;
    perAccount: number;
  }): Promise<ShareClaim> {
    const now = this.p.clock();
    // The due index is read in order, a little past the limit (each row read costs a tenth of a claimed one, measured):
    // enough to serve the accounts at the head of the queue round-robin. Accounts further back are reached when those
    // at the head are full (Firing's look past them).
    const scan = c.limit + 32;
    const found = await claimDueShare((this.p.claims ?? this.p.store).sql, {
      until: new Date(now.getTime() + Math.min(c.aheadMs, MAX_CLAIM_AHEAD_MS)),
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs()),
      limit: c.limit,
      scan,
      share: { ...c.share, overdueBefore: this.overdueBefore(now) },
      rooms: c.rooms,
      perAccount: c.perAccount,
    });
    return {
      claimed: found.claimed.map((row) => ({ row, dueAt: row.next_attempt_at!, held: null, probe: false })),
      careful: found.careful,
      nextDue: found.nextDue,
      leftDue: found.leftDue,
      more: found.scanned >= scan,
    };
  }

  /**
   * The attempt of a claim: sent at its due time (never before: it may have been claimed a little ahead), then
   * recorded. An approval action's attempt is its round of messages instead. `sent` hears when the request is done,
   * before the record.
   */
  async deliver(claimed: Claimed, sent?: () => void): Promise<void> {
    const done = await this.sender.send(claimed, this.requestTimeoutMs());
    sent?.();
    // The send ended within the request timeout, so at least the lease's margin is left; a record that waits for
    // the database stops a second short of it.
    const until = this.p.clock().getTime() + this.p.waits.wait(LEASE_MARGIN_MS, MIN_LEASE_MARGIN_MS) - 1_000;
    if (done) await this.recorder.record(done.attempt, done.result, until);
  }

  /**
   * The common case is one statement (shared with the other claims of this turn): the action is due, needs no
   * coordination check and has attempts left. Anything else (a coordination rule to evaluate, attempts used up by a
   * lost attempt) takes the careful path; an action that is not due, or already taken, costs its share of that one
   * statement.
   */
  private async claim(actionId: string): Promise<Claimed | Held | null> {
    const found = await this.claims.add(actionId);
    if (!found) return null;
    if (found.claimed)
      return {
        row: found.row,
        action: found.row,
        dueAt: found.row.next_attempt_at!,
        held: found.held,
        probe: false,
      };
    return this.careful.claim(actionId, this.leaseMs());
  }

  /**
   * Hands back actions whose worker stopped mid-attempt (lease expired): the lost attempt is logged and the action
   * is retried at once, or fails when that was its last attempt. Safe to run from every worker at once.
   */
  sweepExpiredLeases(): Promise<number> {
    return this.recorder.sweep(this.leaseMs());
  }
}
