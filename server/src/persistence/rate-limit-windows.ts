import { sql } from 'kysely';
import type { Plan } from '../domain/quota/plans.js';
import { fixedStatement, type Sql } from './database.js';

/** One counting window of one bucket. */
export interface WindowHit {
  bucket: string;
  start: Date;
  end: Date;
}

/** Ends the insert of one hit per bucket: a window already counting adds one. */
const ADD_HIT_TEXT = `on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
  returning bucket, hits`;

/** Counts one hit in each window, in one statement; answers each bucket's count so far. */
export async function countHits(db: Sql, windows: WindowHit[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ bucket: string; hits: number }>`
    insert into rate_limit_windows (bucket, window_start, hits, expires_at)
    select b, s, 1, e from unnest(${windows.map((w) => w.bucket)}::text[], ${windows.map((w) => w.start)}::timestamptz[],
      ${windows.map((w) => w.end)}::timestamptz[]) as t(b, s, e)
    ${sql.raw(ADD_HIT_TEXT)}`.execute(db);
  return new Map(rows.map((r) => [r.bucket, r.hits]));
}

/** The holder of a live API key, as authentication needs it. */
export interface KeyHolder {
  key_id: string;
  scopes: string[];
  account_id: string;
  plan: Plan;
  rate_limit_factor: number;
  /** The key's last use was recorded over a minute before `now` (or never). */
  stale: boolean;
}

// Every authenticated request runs it: a fixed text (see fixedStatement).
const keyHolderStatement = fixedStatement<KeyHolder & { hits: Record<string, number> | null }>(
  `with holder as (
     select k.id as key_id, k.scopes, a.id as account_id, a.plan, a.rate_limit_factor,
            (k.last_used_at is null or k.last_used_at < $5) as stale
       from api_keys k join accounts a on a.id = k.account_id
      where k.key_hash = $1 and k.revoked_at is null
   ),
   counted as (
     insert into rate_limit_windows (bucket, window_start, hits, expires_at)
     select t.n || ':' || h.account_id, t.s, 1, t.e
       from holder h, unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) as t(n, s, e)
     ${ADD_HIT_TEXT}
   )
   select h.*, (select json_object_agg(bucket, hits) from counted) as hits from holder h`,
);

/**
 * Finds the holder of a live API key by the key's hash and counts one hit in each named window of that holder's
 * account (bucket `<name>:<account id>`), in one statement: every authenticated request costs one round trip for
 * both. The lookup is by hash, so timing reveals nothing about the secret; there is no cache, so a revocation holds
 * at once in every process. Nothing is counted for an unknown or revoked key (answers null).
 */
export async function findKeyHolderAndCount(
  db: Sql,
  keyHash: string,
  windows: { name: string; start: Date; end: Date }[],
  now: Date,
): Promise<{ holder: KeyHolder; hits: Record<string, number> } | null> {
  const [row] = await keyHolderStatement(db, [
    keyHash,
    windows.map((w) => w.name),
    windows.map((w) => w.start),
    windows.map((w) => w.end),
    new Date(now.getTime() - 60_000),
  ]);
  if (!row) return null;
  const { hits, ...holder } = row;
  return { holder: { ...holder, rate_limit_factor: Number(holder.rate_limit_factor) }, hits: hits ?? {} };
}

/** Drops windows that ended before `now`. */
export async function pruneWindows(db: Sql, now: Date): Promise<number> {
  const result = await db.deleteFrom('rate_limit_windows').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
