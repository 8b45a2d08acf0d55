import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditEvent, AuditSettings, AuditSettingsUpdate, AuditVerification } from '@sched/contract';
import { type AuditActor, ChainVerifier } from '../domain/audit/chain.js';
import {
  type AuditEventRow,
  type AuditFilter,
  accountsWithPendingAudit,
  auditAnchor,
  auditEventBody,
  auditEventsPage,
  insertPendingAuditEvents,
  type NewAuditEvent,
  type PendingAuditEvent,
  pendingAuditJson,
  sealAuditEvents,
} from '../persistence/audit-events.js';
import { auditActionCreateOf, setAuditActionCreate } from '../persistence/accounts.js';
import type { Sql } from '../persistence/database.js';
import { ValidationError } from './errors.js';
import { systemClock } from './clock.js';
import type { Clock, Store } from './ports.js';
import type { Reader, Reads } from './reads.js';

/**
 * Who is acting and from where, for the audit events of this request: set by the HTTP layer around each handler
 * (http/app.ts), read by `recordAudit`. Outside a request (workers, timers) the actor is the service itself.
 */
export interface AuditRequestContext {
  actor: AuditActor | null;
  ip?: string | undefined;
  user_agent?: string | undefined;
  request_id?: string | undefined;
}

const requestContext = new AsyncLocalStorage<AuditRequestContext>();

/** Runs `fn` with the request's audit context (the HTTP layer's hook). */
export function withAuditContext<T>(ctx: AuditRequestContext, fn: () => T): T {
  return requestContext.run(ctx, fn);
}

/** Runs `fn` with another actor for its audit events, keeping the request's address and id (a template trigger). */
export function actingAs<T>(actor: AuditActor, fn: () => T): T {
  return requestContext.run({ ...(requestContext.getStore() ?? {}), actor }, fn);
}

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: 'sched' };
/** An operator's admin verb through the database (`sched accounts ...`, `sched admin keys ...`): no API key. */
export const OPERATOR_ACTOR: AuditActor = { type: 'system', id: 'operator' };

/** The actor of an API principal: its key, or the template whose public trigger acts as the owner. */
export function principalActor(keyId: string): AuditActor {
  return keyId.startsWith('template:')
    ? { type: 'template_trigger', id: keyId.slice('template:'.length) }
    : { type: 'api_key', id: keyId };
}

export interface AuditRecord {
  /** Dotted, resource first: `action.create`, `approval.confirm`, `api_key.revoke`. */
  action: string;
  resource: { type: string; id: string };
  details?: Record<string, unknown> | undefined;
  /** Overrides the request's actor (a recipient answering through a link). */
  actor?: AuditActor | undefined;
  channel?: string | undefined;
  at?: Date | undefined;
}

/** An event as the current request sees it (actor, address, request id), to append now or with a batch later. */
export function auditEventOf(accountId: string, r: AuditRecord): NewAuditEvent & { accountId: string } {
  const ctx = requestContext.getStore();
  return {
    accountId,
    // A caller without a time of its own (a request's change) records the process clock's.
    at: r.at ?? systemClock(),
    action: r.action,
    actor: r.actor ?? ctx?.actor ?? SYSTEM_ACTOR,
    resource: r.resource,
    channel: r.channel,
    ip: ctx?.ip,
    user_agent: ctx?.user_agent,
    request_id: ctx?.request_id,
    details: r.details ?? {},
  };
}

/**
 * The one way a change is recorded in the audit log: in the caller's transaction `db`, so the event commits with the
 * change or not at all. It is written as pending (no lock of the log, so changes of one account never wait for each
 * other's commits) and chained by `AuditSealer` a moment later. Never pass a response token in `details`
 * (docs/audit.md).
 */
export async function recordAudit(db: Sql, accountId: string, ...records: AuditRecord[]): Promise<void> {
  await recordAuditEvents(
    db,
    records.map((r) => auditEventOf(accountId, r)),
  );
}

/** Those of this process that chain pending events (the worker's sealer loop), told when events are written here. */
const writtenHere = new Set<() => void>();

/**
 * Calls `listener` each time this process writes audit events (before their commit): the sealer of a worker chains
 * them within its base pace instead of its idle one. Events written by another process wait for its idle pace, or
 * for a read of the log, which chains first. Answers the unsubscription.
 */
export function onAuditWritten(listener: () => void): () => void {
  writtenHere.add(listener);
  return () => void writtenHere.delete(listener);
}

function written(count: number): void {
  if (count > 0) for (const listener of writtenHere) listener();
}

/**
 * Events captured earlier (`auditEventOf`), ready for a statement that writes them with its own change
 * (persistence/actions.ts `insertActionsWithAudit`).
 */
export function auditBatch(events: readonly PendingAuditEvent[]): string {
  written(events.length);
  return pendingAuditJson(events);
}

/** Writes events captured earlier (`auditEventOf`), of any accounts, in the caller's transaction. */
export async function recordAuditEvents(db: Sql, events: readonly PendingAuditEvent[]): Promise<void> {
  await insertPendingAuditEvents(db, events);
  written(events.length);
}

/** Events chained per statement (and transaction): a bounded hold of the account's head. */
const SEAL_BATCH = 1_000;
/** Accounts looked at per pass of the worker's scan. */
const SEAL_SCAN_ACCOUNTS = 100;

/**
 * Chains pending audit events (persistence/audit-events.ts `sealAuditEvents`): numbers and hashes them in the order
 * they are found committed, under the account's head lock, in statements of at most 1,000 events, each its own
 * transaction, run by the database. The worker runs `sealAll` every second while there is something to chain, less
 * often while there is not (jobs/audit-sealer.ts); every read of an account's log seals that account first, so a read
 * shows every change committed before it.
 */
export class AuditSealer {
  constructor(private readonly store: Store) {}

  /** Every pending event of the account, chained; answers how many. */
  async seal(accountId: string): Promise<number> {
    let total = 0;
    for (;;) {
      const sealed = await sealAuditEvents(this.store.sql, accountId, SEAL_BATCH);
      total += sealed;
      if (sealed < SEAL_BATCH) return total;
    }
  }

  /** One pass over the accounts with pending events (at most 100 of them); answers how many events it chained. */
  async sealAll(): Promise<number> {
    let total = 0;
    for (const accountId of await accountsWithPendingAudit(this.store.sql, SEAL_SCAN_ACCOUNTS))
      total += await this.seal(accountId);
    return total;
  }
}

/** The fields a request body sets, sorted: what an update's audit event says changed (never their values). */
export function auditFields(input: object): string[] {
  return Object.entries(input)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}

export interface AuditListQuery {
  resource_id?: string | undefined;
  action?: string | undefined;
  actor_type?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** `strong`: read on the primary even with a read replica (app/reads.ts). */
  consistency?: 'eventual' | 'strong' | undefined;
  /** The `seq` the page starts after (keyset). */
  after?: number | undefined;
  limit: number;
}

/** Reading and checking an account's audit log; each read chains the account's pending events first. */
export class AuditService {
  private readonly sealer: AuditSealer;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The list and the export on the read replica when allowed; the seal before them stays on the primary. */
    private readonly reads: Reads,
  ) {
    this.sealer = new AuditSealer(store);
  }

  private read<T>(
    accountId: string,
    q: { consistency?: Reader['consistency'] },
    fn: (db: Sql) => Promise<T>,
  ) {
    return this.reads.run({ accountId, consistency: q.consistency }, fn);
  }

  async list(
    accountId: string,
    q: AuditListQuery,
  ): Promise<{ data: AuditEvent[]; meta: { next_after: number | null; limit: number } }> {
    await this.sealer.seal(accountId);
    const rows = await this.read(accountId, q, (db) =>
      auditEventsPage(db, accountId, filterOf(q), { afterSeq: q.after ?? 0, limit: q.limit }),
    );
    const data = rows.map(view);
    return {
      data,
      meta: { next_after: rows.length === q.limit ? (rows.at(-1)?.seq ?? null) : null, limit: q.limit },
    };
  }

  /** Every event of the filter, oldest first, page by page (the export's stream). */
  async *all(accountId: string, q: Omit<AuditListQuery, 'limit' | 'after'>): AsyncGenerator<AuditEvent> {
    await this.sealer.seal(accountId);
    const filter = filterOf(q);
    let after = 0;
    for (;;) {
      const from = after;
      const rows = await this.read(accountId, q, (db) =>
        auditEventsPage(db, accountId, filter, { afterSeq: from, limit: 500 }),
      );
      for (const r of rows) yield view(r);
      if (rows.length < 500) return;
      after = rows.at(-1)!.seq;
    }
  }

  /**
   * Recomputes the account's chain from its anchor to the head the log records, and reports that head (`head_seq`,
   * `head_hash`): the first seq whose hash or link does not hold, or where the events stop short of the head.
   */
  async verify(accountId: string): Promise<AuditVerification> {
    await this.sealer.seal(accountId);
    // The head is read first: events sealed meanwhile lie beyond it and are left for the next check.
    const anchor = await auditAnchor(this.store.sql, accountId);
    const verifier = new ChainVerifier(anchor.hash, anchor.seq + 1);
    let after = anchor.seq;
    for (;;) {
      const rows = await auditEventsPage(this.store.sql, accountId, {}, { afterSeq: after, limit: 1000 });
      for (const r of rows)
        if (r.seq <= anchor.head.seq)
          verifier.next({ ...auditEventBody(r), prev_hash: r.prev_hash, hash: r.hash });
      if (rows.length < 1000 || rows.at(-1)!.seq >= anchor.head.seq) break;
      after = rows.at(-1)!.seq;
    }
    const result = verifier.resultAtHead(anchor.head);
    const head = { head_seq: anchor.head.seq, head_hash: anchor.head.hash };
    return result.ok
      ? { ok: true, checked: result.checked, ...head }
      : { ok: false, checked: result.checked, broken_at: result.brokenAt, ...head };
  }

  /** Which data events the account records (docs/audit.md): `action_create`, on unless turned off. */
  async settings(accountId: string): Promise<AuditSettings> {
    return { action_create: await auditActionCreateOf(this.store.sql, accountId) };
  }

  /** Changes them; a change is itself recorded (`account.update`, with the setting's from and to). */
  async updateSettings(accountId: string, body: AuditSettingsUpdate): Promise<AuditSettings> {
    return this.store.transaction(async (db) => {
      const from = await auditActionCreateOf(db, accountId, true);
      const to = body.action_create ?? from;
      if (to !== from) {
        await setAuditActionCreate(db, accountId, to, this.clock());
        await recordAudit(db, accountId, {
          action: 'account.update',
          resource: { type: 'account', id: accountId },
          details: { audit_action_create: { from, to } },
        });
      }
      return { action_create: to };
    });
  }

  now(): Date {
    return this.clock();
  }
}

function view(r: AuditEventRow): AuditEvent {
  return { ...auditEventBody(r), prev_hash: r.prev_hash, hash: r.hash } as AuditEvent;
}

function filterOf(q: Omit<AuditListQuery, 'limit' | 'after'>): AuditFilter {
  const date = (field: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw ValidationError.field(field, 'must be an ISO 8601 time');
    return d;
  };
  return {
    resourceId: q.resource_id,
    action: q.action,
    actorType: q.actor_type,
    from: date('from', q.from),
    to: date('to', q.to),
  };
}
