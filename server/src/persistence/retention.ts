import { sql } from 'kysely';
import { TERMINAL_STATES } from '../domain/action/states.js';
import { CHAIN_TERMINAL_STATES } from '../domain/chain/states.js';
import type { Plan } from '../domain/quota/plans.js';
import { pruneOrigins } from './action-origins.js';
import { onUntimedConnection, type Sql } from './database.js';

/** Rows purged (or, on a dry run, that would be), by table. Rows deleted by cascade are not listed. */
export interface PurgeCounts {
  actions: number;
  delivery_attempts: number;
  reminder_events: number;
  outbox_messages: number;
  /** Ended chains, with their steps (by cascade) and callback deliveries (history retention). */
  chains: number;
  /** Audit events, dropped only as a whole prefix of each account's chain (persistence/audit-events.ts). */
  audit_events: number;
}

export const emptyPurgeCounts = (): PurgeCounts => ({
  actions: 0,
  delivery_attempts: 0,
  reminder_events: 0,
  outbox_messages: 0,
  chains: 0,
  audit_events: 0,
});

/**
 * The instants before which a plan's rows go: `history` for terminal actions and live series' attempts (for the
 * longest retentions, the start of the oldest month of attempts kept: domain/history/partitions.ts `historyCutoff`),
 * `other` for loose outbox rows and ended chains.
 */
export interface PurgeCutoffs {
  history: Date;
  other: Date;
}

const planAccounts = (db: Sql, plan: Plan) => db.selectFrom('accounts').select('id').where('plan', '=', plan);

/**
 * Attempts older than `cutoff` of the plan's live actions (a recurring series lives for ever; its attempt log must
 * not, or its history would grow without bound). Terminal actions' attempts go with their action. Read from each of
 * the plan's accounts, its live actions made before the cutoff (an action is attempted only once it is made) through
 * its `(account_id, created_at)` index, then each one's attempts by key; `lock` takes them with SKIP LOCKED. The reads
 * are lateral and fenced (`offset 0`) so the planner keeps that order: joined as plain tables, it read every plan's
 * old attempts whole and matched them to the plan's accounts last (0.5-0.9 s a plan at 300,000 actions of history,
 * growing with it).
 */
function expiredLiveAttempts(db: Sql, plan: Plan, cutoff: Date, lock = false) {
  return db
    .selectFrom('accounts')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('actions')
          .select('actions.id')
          .whereRef('actions.account_id', '=', 'accounts.id')
          .where('actions.created_at', '<', cutoff)
          .where('actions.status', 'not in', TERMINAL_STATES)
          .offset(0)
          .as('live'),
      (join) => join.onTrue(),
    )
    .innerJoinLateral(
      (eb) => {
        const old = eb
          .selectFrom('delivery_attempts')
          .select(['delivery_attempts.action_id', 'delivery_attempts.id'])
          .whereRef('delivery_attempts.action_id', '=', 'live.id')
          .where('delivery_attempts.started_at', '<', cutoff);
        return (lock ? old.forUpdate().skipLocked() : old.offset(0)).as('old');
      },
      (join) => join.onTrue(),
    )
    .select(['old.action_id', 'old.id'])
    .where('accounts.plan', '=', plan);
}

/** Chains of the plan's accounts that ended before `cutoff` (running and pending chains are never selected). */
function expiredChains(db: Sql, plan: Plan, cutoff: Date) {
  return db
    .selectFrom('chains')
    .select('chains.id')
    .where('chains.status', 'in', CHAIN_TERMINAL_STATES)
    .where('chains.completed_at', '<', cutoff)
    .where('chains.account_id', 'in', planAccounts(db, plan));
}

/** Where a pass over one account's expired actions stands: the last action it read, in the order it reads them. */
export interface ActionCursor {
  createdAt: Date;
  id: string;
}

/** One account's pass: its id, and where the last batch stopped (null for its first). */
export interface AccountPass {
  accountId: string;
  after: ActionCursor | null;
}

/**
 * Terminal actions that ended (last changed) before `cutoff`; the caller says whose (one account, or a plan's). An
 * action ends after it is made, so each was made before the cutoff too: with an account named, its
 * `(account_id, created_at)` index bounds the read to the account's own old rows, never another plan's history nor
 * the account's recent one. Live actions are never selected: only the terminal states are.
 */
function expiredActions(db: Sql, cutoff: Date) {
  return db
    .selectFrom('actions')
    .select('actions.id')
    .where('actions.created_at', '<', cutoff)
    .where('actions.status', 'in', TERMINAL_STATES)
    .where('actions.updated_at', '<', cutoff);
}

/**
 * The next `limit` accounts of the plan after `after` (by id) that have an action past `cutoff` to purge: a pass
 * visits only those, so a plan of many quiet accounts costs one index probe each.
 */
export async function accountsToPurge(
  db: Sql,
  plan: Plan,
  cutoff: Date,
  after: string | null,
  limit: number,
): Promise<string[]> {
  let q = db
    .selectFrom('accounts')
    .select('accounts.id')
    .where('accounts.plan', '=', plan)
    .where((eb) =>
      eb.exists(expiredActions(db, cutoff).where('actions.account_id', '=', eb.ref('accounts.id')).limit(1)),
    )
    .orderBy('accounts.id')
    .limit(limit);
  if (after !== null) q = q.where('accounts.id', '>', after);
  return (await q.execute()).map((r) => r.id);
}

/** Outbox rows of the plan's accounts older than `cutoff` that belong to no action (those go with their action). */
function expiredOutbox(db: Sql, plan: Plan, cutoff: Date) {
  return db
    .selectFrom('outbox_messages')
    .select('outbox_messages.id')
    .where('outbox_messages.created_at', '<', cutoff)
    .where('outbox_messages.action_id', 'is', null)
    .where(
      'outbox_messages.account_id',
      'in',
      db.selectFrom('accounts').select('id').where('plan', '=', plan),
    );
}

/** What a purge would delete now (for `sched purge --dry-run`). */
export async function countExpired(
  db: Sql,
  plan: Plan,
  cutoffs: PurgeCutoffs,
): Promise<Omit<PurgeCounts, 'audit_events'>> {
  const ids = expiredActions(db, cutoffs.history).where('actions.account_id', 'in', planAccounts(db, plan));
  const count = async (q: Promise<{ n: string | number | bigint }>) => Number((await q).n);
  const [actions, attempts, events, outboxOfActions, outbox, liveAttempts, chains] = await Promise.all([
    count(
      db
        .selectFrom(ids.as('e'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('reminder_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom('outbox_messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action_id', 'in', ids)
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom(expiredOutbox(db, plan, cutoffs.other).as('o'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom(expiredLiveAttempts(db, plan, cutoffs.history).as('l'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
    count(
      db
        .selectFrom(expiredChains(db, plan, cutoffs.other).as('c'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    ),
  ]);
  return {
    actions,
    delivery_attempts: attempts + liveAttempts,
    reminder_events: events,
    outbox_messages: outboxOfActions + outbox,
    chains,
  };
}

/**
 * Deletes one batch of at most `limit` of an account's expired actions with their attempts, reminder events and
 * outbox rows (the rest of their rows go by cascade), oldest first, and the account's origins no action aims at any
 * more. `next` is where the following batch reads the account's index on from; null once a batch was not full. Call
 * it in a short transaction of its own: the locks held are those of one batch. SKIP LOCKED leaves rows another
 * transaction holds to a later run.
 */
export async function purgeAccountBatch(
  db: Sql,
  cutoffs: PurgeCutoffs,
  limit: number,
  pass: AccountPass,
): Promise<{ counts: PurgeCounts; next: ActionCursor | null; prunedOrigins: string[] }> {
  const counts = emptyPurgeCounts();
  let q = expiredActions(db, cutoffs.history)
    .where('actions.account_id', '=', pass.accountId)
    .select(['actions.created_at', 'actions.destination_origin'])
    .orderBy('actions.created_at')
    .orderBy('actions.id')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const after = pass.after;
  if (after) q = q.where(sql<boolean>`(actions.created_at, actions.id) > (${after.createdAt}, ${after.id})`);
  const rows = await q.execute();
  const ids = rows.map((r) => r.id);
  if (ids.length > 0) {
    const deleted = async (q: { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }) =>
      Number((await q.executeTakeFirst()).numDeletedRows);
    counts.delivery_attempts = await deleted(
      db.deleteFrom('delivery_attempts').where('action_id', 'in', ids),
    );
    counts.reminder_events = await deleted(db.deleteFrom('reminder_events').where('action_id', 'in', ids));
    counts.outbox_messages = await deleted(db.deleteFrom('outbox_messages').where('action_id', 'in', ids));
    // Refused replies and clicks go with the action they named (not counted: a note about the action's history).
    await db.deleteFrom('inbound_replies').where('action_id', 'in', ids).execute();
    counts.actions = await deleted(db.deleteFrom('actions').where('id', 'in', ids));
  }
  const origins = new Set(rows.flatMap((r) => (r.destination_origin ? [r.destination_origin] : [])));
  const last = rows.at(-1);
  return {
    counts,
    next: last && rows.length === limit ? { createdAt: last.created_at, id: last.id } : null,
    // The origins whose last action went with this batch (persistence/action-origins.ts).
    prunedOrigins: await pruneOrigins(db, pass.accountId, [...origins]),
  };
}

/**
 * Once every account's actions are done: deletes one batch of the plan's expired loose outbox rows, live actions' old
 * attempts and ended chains; repeat while `more`. A short transaction of its own, as above.
 */
export async function purgeOtherBatch(
  db: Sql,
  plan: Plan,
  cutoffs: PurgeCutoffs,
  limit: number,
): Promise<{ counts: PurgeCounts; more: boolean }> {
  const counts = emptyPurgeCounts();
  const loose = await db
    .deleteFrom('outbox_messages')
    .where(
      'id',
      'in',
      db
        .selectFrom(expiredOutbox(db, plan, cutoffs.other).limit(limit).forUpdate().skipLocked().as('o'))
        .select('o.id'),
    )
    .executeTakeFirst();
  const looseCount = Number(loose.numDeletedRows);
  counts.outbox_messages += looseCount;
  // By the whole primary key (action, id): the id alone is indexed in no partition.
  const liveAttempts = await db
    .deleteFrom('delivery_attempts')
    .where(
      sql<boolean>`(action_id, id) in (${db
        .selectFrom(expiredLiveAttempts(db, plan, cutoffs.history, true).limit(limit).as('l'))
        .select(['l.action_id', 'l.id'])})`,
    )
    .executeTakeFirst();
  const liveAttemptCount = Number(liveAttempts.numDeletedRows);
  counts.delivery_attempts += liveAttemptCount;
  const chainIds = (
    await expiredChains(db, plan, cutoffs.other)
      .orderBy('chains.completed_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute()
  ).map((r) => r.id);
  if (chainIds.length > 0) {
    await db.deleteFrom('callback_deliveries').where('chain_id', 'in', chainIds).execute();
    // Steps go by cascade; their actions are purged as actions (terminal ones) when they are old enough.
    counts.chains = Number(
      (await db.deleteFrom('chains').where('id', 'in', chainIds).executeTakeFirst()).numDeletedRows,
    );
  }
  // A full batch of any kind may have left more behind.
  return { counts, more: looseCount === limit || liveAttemptCount === limit || chainIds.length === limit };
}

/** The tables a purge deletes rows from, by the count that says it did, with those its foreign keys cascade to. */
const PURGED_TABLES: Record<keyof PurgeCounts, readonly string[]> = {
  actions: [
    'actions',
    'action_origins',
    'inbound_replies',
    'recipients',
    'notifications',
    'attachments',
    'callback_deliveries',
  ],
  delivery_attempts: ['delivery_attempts'],
  reminder_events: ['reminder_events'],
  outbox_messages: ['outbox_messages'],
  chains: ['chains', 'chain_steps', 'callback_deliveries'],
  audit_events: [],
};

/**
 * VACUUMs the tables a purge deleted rows from, on a connection of its own without a statement timeout (VACUUM cannot
 * run in a transaction): the deleted rows' space is free for new rows at once, and no dead tuple is left for the next
 * autovacuum (which, at the default scale factor, waits for a fifth of a large table to be dead). Pages without dead
 * rows are skipped through the visibility map; a page a reader has pinned at that instant keeps its dead rows for the
 * next vacuum (VACUUM does not wait for a cleanup lock). Answers the tables vacuumed.
 */
export async function vacuumPurged(db: Sql, counts: PurgeCounts): Promise<string[]> {
  const tables = [
    ...new Set(
      (Object.keys(PURGED_TABLES) as (keyof PurgeCounts)[]).flatMap((k) =>
        counts[k] > 0 ? PURGED_TABLES[k] : [],
      ),
    ),
  ];
  if (tables.length === 0) return [];
  await onUntimedConnection(db, (connection) =>
    sql.raw(`vacuum (analyze) ${tables.map((t) => `"${t}"`).join(', ')}`).execute(connection),
  );
  return tables;
}
