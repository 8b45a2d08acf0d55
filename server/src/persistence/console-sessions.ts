import type { Sql } from './database.js';

/** The live key of a secret's hash, or null (no such key, revoked or expired). */
export async function findLiveKeyByHash(
  db: Sql,
  keyHash: string,
  now: Date,
): Promise<{ id: string; scopes: string[] } | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'scopes'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return row ?? null;
}

export async function insertConsoleSession(
  db: Sql,
  s: { idHash: string; apiKeyId: string; now: Date },
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ id_hash: s.idHash, api_key_id: s.apiKeyId, created_at: s.now, last_seen_at: s.now })
    .execute();
}

/**
 * Resolves a session that has been used since `idleSince` to its key's hash and records the use (sliding idle
 * expiry), in one statement; null when the session is unknown, idle too long, or its key revoked or expired.
 */
export async function touchConsoleSession(
  db: Sql,
  idHash: string,
  now: Date,
  idleSince: Date,
  signedInSince: Date,
): Promise<{ key_hash: string; scopes: string[] } | null> {
  const row = await db
    .updateTable('console_sessions')
    .from('api_keys')
    .set({ last_seen_at: now })
    .whereRef('api_keys.id', '=', 'console_sessions.api_key_id')
    .where('console_sessions.id_hash', '=', idHash)
    .where('console_sessions.last_seen_at', '>', idleSince)
    .where('console_sessions.created_at', '>', signedInSince)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
    .returning(['api_keys.key_hash', 'api_keys.scopes'])
    .executeTakeFirst();
  return row ?? null;
}

export async function deleteConsoleSession(db: Sql, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Drops sessions idle since before `idleSince`. */
export async function pruneConsoleSessions(db: Sql, idleSince: Date, signedInSince: Date): Promise<number> {
  const result = await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('last_seen_at', '<=', idleSince), eb('created_at', '<=', signedInSince)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
