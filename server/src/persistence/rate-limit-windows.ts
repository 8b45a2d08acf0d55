import { sql } from 'kysely';
import type { Plan } from '../domain/quota/plans.js';
import { fixedStatement, type Sql } from './database.js';

/** One counting window of one bucket. */
export interface WindowHit {
  bucket: string;
  start: Date;
  end: Date;
}

/** Ends the insert of hits per bucket: a window already counting adds them. */
const ADD_HIT_TEXT = `on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
  returning bucket, window_start, hits`;

/** Counts `weight` hits (default one) in each window, in one statement; answers each bucket's count so far. */
export async function countHits(db: Sql, windows: WindowHit[], weight = 1): Promise<Map<string, number>> {
  const { rows } = await sql<{ bucket: string; hits: number }>`
    insert into rate_limit_windows (bucket, window_start, hits, expires_at)
    select b, s, ${weight}::int, e from unnest(${windows.map((w) => w.bucket)}::text[], ${windows.map((w) => w.start)}::timestamptz[],
      ${windows.map((w) => w.end)}::timestamptz[]) as t(b, s, e)
    ${sql.raw(ADD_HIT_TEXT)}`.execute(db);
  return new Map(rows.map((r) => [r.bucket, r.hits]));
}

/** The hits counted so far in each window that exists (a plain read: a check before a create, no lock). */
export async function windowHits(db: Sql, windows: Omit<WindowHit, 'end'>[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ bucket: string; hits: number }>`
    select w.bucket, w.hits from rate_limit_windows w
      join unnest(${windows.map((w) => w.bucket)}::text[], ${windows.map((w) => w.start)}::timestamptz[]) as t(b, s)
        on w.bucket = t.b and w.window_start = t.s`.execute(db);
  return new Map(rows.map((r) => [r.bucket, r.hits]));
}

/** Takes back `weight` hits counted by countHits in these windows (never below zero; a window gone stays gone). */
export async function refundHits(db: Sql, windows: WindowHit[], weight = 1): Promise<void> {
  await sql`
    update rate_limit_windows r set hits = greatest(r.hits - ${weight}::int, 0)
      from unnest(${windows.map((w) => w.bucket)}::text[], ${windows.map((w) => w.start)}::timestamptz[]) as t(b, s)
     where r.bucket = t.b and r.window_start = t.s`.execute(db);
}

/** The holder of a live API key, as authentication needs it. */
export interface KeyHolder {
  key_id: string;
  scopes: string[];
  account_id: string;
  plan: Plan;
  rate_limit_factor: number;
  /** Whether the account records its creates (`action.create`, docs/audit.md). */
  audit_action_create: boolean;
  /** The key's last use was recorded over a minute before `now` (or never). */
  stale: boolean;
}

// Every authenticated request runs it, with the other requests of its turn of the event loop (app/tick-batch.ts):
// a fixed text (see fixedStatement). Windows are counted in (bucket, start) order, so two processes counting
// overlapping buckets wait for each other instead of deadlocking.
const keyHolderStatement = fixedStatement<KeyHolder & { i: number; hits: [string, string, number][] | null }>(
  `with holder as (
     select r.i, k.id as key_id, k.scopes, a.id as account_id, a.plan, a.rate_limit_factor, a.audit_action_create,
            (k.last_used_at is null or k.last_used_at < $6) as stale
       from unnest($1::int[], $2::text[]) as r(i, key_hash)
       join api_keys k on k.key_hash = r.key_hash and k.revoked_at is null
                      and (k.expires_at is null or k.expires_at > $8)
       join accounts a on a.id = k.account_id
   ),
   counted as (
     insert into rate_limit_windows (bucket, window_start, hits, expires_at)
     select t.n || ':' || h.account_id, t.s, count(*), max(t.e)
       from holder h join unnest($3::int[], $4::text[], $5::timestamptz[], $7::timestamptz[]) as t(i, n, s, e)
         on t.i = h.i
      group by 1, 2
      order by 1, 2
     ${ADD_HIT_TEXT}
   )
   select h.*, (select json_agg(json_build_array(bucket, window_start, hits)) from counted) as hits from holder h`,
);

/** What authentication found for one request: the key's holder and the request's count in each window. */
export type KeyHolderFound = { holder: KeyHolder; hits: Record<string, number> } | null;

/** A request to authenticate: the key's hash and the windows to count one hit in. */
export interface KeyHolderQuery {
  keyHash: string;
  windows: { name: string; start: Date; end: Date }[];
}

/**
 * Finds the holders of live API keys by the keys' hashes and counts one hit per request in each named window of
 * that holder's account (bucket `<name>:<account id>`), for several requests in one statement. Each request gets its
 * own count, as if they had been counted one after the other in the order given, so limits stay exact. The lookup
 * is by hash, so timing reveals nothing about the secret; there is no cache, so a revocation holds at once in every
 * process. Nothing is counted for an unknown, revoked or expired key (answers null in its place).
 */
export async function findKeyHoldersAndCount(
  db: Sql,
  queries: readonly KeyHolderQuery[],
  now: Date,
): Promise<KeyHolderFound[]> {
  const hits = queries.flatMap((q, i) => q.windows.map((w) => ({ i, ...w })));
  const rows = await keyHolderStatement(db, [
    queries.map((_, i) => i),
    queries.map((q) => q.keyHash),
    hits.map((h) => h.i),
    hits.map((h) => h.name),
    hits.map((h) => h.start),
    new Date(now.getTime() - 60_000),
    hits.map((h) => h.end),
    now,
  ]);
  const holders = new Map(rows.map(({ i, hits: _, ...holder }) => [i, holder]));
  // The window's count after the whole batch, handed back down in request order: the last request gets the total.
  const totals = new Map<string, number>();
  for (const [bucket, start, total] of rows[0]?.hits ?? [])
    totals.set(`${bucket}@${Date.parse(start)}`, total);
  const answers: KeyHolderFound[] = queries.map(() => null);
  for (let i = queries.length - 1; i >= 0; i -= 1) {
    const holder = holders.get(i);
    if (!holder) continue;
    const counts: Record<string, number> = {};
    for (const w of queries[i]!.windows) {
      const bucket = `${w.name}:${holder.account_id}`;
      const key = `${bucket}@${w.start.getTime()}`;
      const total = totals.get(key) ?? 1;
      counts[bucket] = total;
      totals.set(key, total - 1);
    }
    answers[i] = { holder: { ...holder, rate_limit_factor: Number(holder.rate_limit_factor) }, hits: counts };
  }
  return answers;
}

/** Drops windows that ended before `now`. */
export async function pruneWindows(db: Sql, now: Date): Promise<number> {
  const result = await db.deleteFrom('rate_limit_windows').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
