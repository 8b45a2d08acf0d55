import { createHash } from 'node:crypto';

/** Who made a change: an API key (or console session acting as one), a recipient's link, the service, a trigger. */
export type AuditActorType = 'api_key' | 'recipient' | 'system' | 'template_trigger';

export interface AuditActor {
  type: AuditActorType;
  id: string;
  email?: string | undefined;
}

/** An audit event as it is hashed and served (`hash` and `prev_hash` aside). */
export interface AuditEventBody {
  seq: number;
  id: string;
  /** ISO 8601 with milliseconds, UTC. */
  at: string;
  action: string;
  actor: AuditActor;
  resource: { type: string; id: string };
  channel?: string | undefined;
  ip?: string | undefined;
  user_agent?: string | undefined;
  request_id?: string | undefined;
  details: Record<string, unknown>;
}

/** The `prev_hash` of an account's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Canonical JSON (RFC 8785 in the subset an audit event uses): object keys sorted by UTF-16 code units, no
 * whitespace, `undefined` members left out, numbers as JavaScript prints them. Two events that mean the same thing
 * hash the same whatever order their members were written in, and a verifier in another language can redo it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
      return JSON.stringify(value);
    case 'object': {
      // Loops and string appends, not entries/map/join: every audited change pays this once (docs/performance.md).
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i] ?? null);
        return `${out}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const record = value as Record<string, unknown>;
      // The default sort compares UTF-16 code units.
      const keys = Object.keys(record).sort();
      let out = '{';
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member)}`;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/** The columns an event has before and after it is chained (`audit_pending`, `audit_events`), `at` as ISO text. */
export interface AuditEventColumns {
  id: string;
  at: string;
  action: string;
  actor_type: AuditActorType;
  actor_id: string;
  actor_email: string | null;
  resource_type: string;
  resource_id: string;
  channel: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

/**
 * An event's columns as the event that is hashed and served, `seq` aside: the one mapping, used to cut the canonical
 * text when the event is written (persistence/audit-events.ts `pendingAuditJson`, and the migration
 * AuditSealInDatabase) and to serve and verify it once chained (`auditEventBody` there).
 */
export function auditEventOfColumns(c: AuditEventColumns): Omit<AuditEventBody, 'seq'> {
  return {
    id: c.id,
    at: c.at,
    action: c.action,
    actor: c.actor_email
      ? { type: c.actor_type, id: c.actor_id, email: c.actor_email }
      : { type: c.actor_type, id: c.actor_id },
    resource: { type: c.resource_type, id: c.resource_id },
    ...(c.channel ? { channel: c.channel } : {}),
    ...(c.ip ? { ip: c.ip } : {}),
    ...(c.user_agent ? { user_agent: c.user_agent } : {}),
    ...(c.request_id ? { request_id: c.request_id } : {}),
    details: c.details,
  };
}

/**
 * The canonical JSON of an event cut around its `seq`, for a chain numbered after the event was written: with the
 * event's seq `n`, `head + n + tail` is `canonicalJson({ ...event, seq: n })`. The sealer (persistence/audit-events.ts)
 * hashes `prev_hash ‖ head ‖ seq ‖ tail` in the database, so the text hashed is the one `canonicalJson` prints.
 */
export function canonicalParts(event: Omit<AuditEventBody, 'seq'>): { head: string; tail: string } {
  const text = canonicalJson({ ...event, seq: 0 });
  // The last `"seq":0` is the event's own: only `user_agent` sorts after it, and inside its JSON string a quote
  // is escaped, so the member name cannot appear there.
  const at = text.lastIndexOf('"seq":0');
  return { head: text.slice(0, at + '"seq":'.length), tail: text.slice(at + '"seq":0'.length) };
}

/** `sha256(prev_hash ‖ canonical JSON of the event)`, lowercase hex. */
export function auditHash(prevHash: string, event: AuditEventBody): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(event)).digest('hex');
}

export type ChainCheck = { ok: true; checked: number } | { ok: false; checked: number; brokenAt: number };

/**
 * Walks an account's events in `seq` order from an anchor (the genesis hash, or the last hash retention dropped):
 * each event must name the hash before it and carry the hash of itself; seqs must follow without a gap. Reports the
 * first seq that does not. Feed it page by page (`next`), carrying the state it returns.
 */
export class ChainVerifier {
  private checked = 0;
  private brokenAt: number | null = null;

  constructor(
    private prevHash: string,
    private expectedSeq: number | null,
  ) {}

  next(event: AuditEventBody & { prev_hash: string; hash: string }): void {
    if (this.brokenAt !== null) return;
    this.checked += 1;
    const { prev_hash: prev, hash, ...body } = event;
    if (
      (this.expectedSeq !== null && event.seq !== this.expectedSeq) ||
      prev !== this.prevHash ||
      auditHash(prev, body) !== hash
    ) {
      this.brokenAt = event.seq;
      return;
    }
    this.prevHash = hash;
    this.expectedSeq = event.seq + 1;
  }

  result(): ChainCheck {
    return this.brokenAt === null
      ? { ok: true, checked: this.checked }
      : { ok: false, checked: this.checked, brokenAt: this.brokenAt };
  }

  /**
   * The result, the walk having been fed every event up to the head the log records: it must end there, at the
   * head's seq and hash. A tail deleted without moving the head back breaks at the first missing seq. (A head moved
   * back too cannot be told from here: compare `head_seq`/`head_hash` with a checkpoint exported earlier.)
   */
  resultAtHead(head: { seq: number; hash: string }): ChainCheck {
    const r = this.result();
    if (!r.ok) return r;
    const lastSeq = this.expectedSeq === null ? head.seq : this.expectedSeq - 1;
    if (lastSeq === head.seq && this.prevHash === head.hash) return r;
    return { ok: false, checked: r.checked, brokenAt: Math.min(lastSeq, head.seq) + 1 };
  }
}

/** Whether an action name matches a filter whose `*` stands for any run of characters (`approval.*`). */
export function actionPatternToLike(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}
