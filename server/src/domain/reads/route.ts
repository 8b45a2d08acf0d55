/**
 * Where a read that may lag is served: the streaming replica, or the primary. Reads that decide (claims, creates,
 * answers, idempotency, rate limits, quota, authentication) never ask: they run on the primary.
 */

/** What the replica's watcher last saw: `down` when it did not answer, its lag behind the primary otherwise. */
export type ReplicaHealth = { state: 'down' } | { state: 'up'; lagSeconds: number };

export type ReadTarget =
  | { on: 'replica' }
  | { on: 'primary'; why: 'strong' | 'no_replica' | 'replica_down' | 'replica_lagging' | 'recent_write' };

export interface ReadRequest {
  /** The caller asked for `consistency=strong`. */
  strong: boolean;
  /** When the caller's account last wrote, as the primary remembers it (null: not lately). */
  lastWriteAt: Date | null;
  now: Date;
}

export interface ReadPolicy {
  /** A replica lagging more than this serves nothing. */
  maxLagSeconds: number;
  /** An account's reads stay on the primary this long after its writes. */
  readYourWritesSeconds: number;
}

/** One second of slack: the lag is measured once a second, so it may be a second older than the read. */
const LAG_SLACK_SECONDS = 1;

export function readTarget(
  request: ReadRequest,
  replica: ReplicaHealth | undefined,
  policy: ReadPolicy,
): ReadTarget {
  if (!replica) return { on: 'primary', why: 'no_replica' };
  if (request.strong) return { on: 'primary', why: 'strong' };
  if (replica.state === 'down') return { on: 'primary', why: 'replica_down' };
  if (replica.lagSeconds > policy.maxLagSeconds) return { on: 'primary', why: 'replica_lagging' };
  if (request.lastWriteAt && wroteWithin(request, replica.lagSeconds, policy))
    return { on: 'primary', why: 'recent_write' };
  return { on: 'replica' };
}

/**
 * Whether the account's last write may not have reached the replica yet: within the configured window, or within
 * the replica's current lag (plus the slack of its measure) when that is longer, so a lagging replica never hides
 * a client's own write.
 */
function wroteWithin(request: ReadRequest, lagSeconds: number, policy: ReadPolicy): boolean {
  // The recorded time may be up to one record interval older than the write it stands for.
  const window = Math.max(policy.readYourWritesSeconds, lagSeconds + LAG_SLACK_SECONDS) * 1000;
  return request.now.getTime() - request.lastWriteAt!.getTime() < window + WRITE_RECORD_INTERVAL_MS;
}

/**
 * How often an API process records an account's write: at most once a second, so a burst of creates costs one
 * upsert a second; the window counts from the recorded time, which is at most this much early.
 */
export const WRITE_RECORD_INTERVAL_MS = 1_000;

/** Whether a write at `now` needs recording, given when this process last recorded one for the account. */
export function shouldRecordWrite(lastRecorded: Date | undefined, now: Date): boolean {
  return !lastRecorded || now.getTime() - lastRecorded.getTime() >= WRITE_RECORD_INTERVAL_MS;
}
