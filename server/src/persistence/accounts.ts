import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Sql } from './database.js';
import { type Account, AccountSchema, type ApiKey, ApiKeySchema, type Plan } from './entities/account.js';

export type { Account, ApiKey };

// Accounts and API keys are plain CRUD: the entity manager, one fork per operation, joining the caller's transaction
// when there is one (Database.transaction), so the change and its audit event commit together.

export async function insertAccountWithKey(
  orm: MikroORM,
  a: { id: string; name: string; plan: Plan; rateLimitFactor: number },
  k: { id: string; name: string | null; prefix: string; keyHash: string; scopes: string[] },
): Promise<Account> {
  const em = orm.em.fork({ keepTransactionContext: true });
  const account = em.create(AccountSchema, a);
  em.create(ApiKeySchema, { ...k, account });
  await em.flush();
  return account;
}

export async function updateAccount(
  orm: MikroORM,
  id: string,
  changes: Partial<Pick<Account, 'name' | 'plan' | 'rateLimitFactor'>>,
): Promise<Account | null> {
  const em = orm.em.fork({ keepTransactionContext: true });
  const account = await em.findOne(AccountSchema, { id });
  if (!account) return null;
  em.assign(account, changes);
  await em.flush();
  return account;
}

export async function listAccounts(orm: MikroORM): Promise<Account[]> {
  return orm.em
    .fork({ keepTransactionContext: true })
    .find(AccountSchema, {}, { orderBy: { createdAt: 'asc' } });
}

export async function findAccount(orm: MikroORM, id: string): Promise<Account | null> {
  return orm.em.fork({ keepTransactionContext: true }).findOne(AccountSchema, { id });
}

/** A new key's row: its secret only as a hash. */
export interface NewApiKey {
  id: string;
  name: string | null;
  prefix: string;
  keyHash: string;
  scopes: string[];
  expiresAt?: Date | null;
}

export async function insertApiKey(orm: MikroORM, accountId: string, k: NewApiKey): Promise<ApiKey> {
  const em = orm.em.fork({ keepTransactionContext: true });
  const key = em.create(ApiKeySchema, { ...k, account: accountId });
  await em.flush();
  return key;
}

export async function listApiKeys(orm: MikroORM, accountId: string): Promise<ApiKey[]> {
  return orm.em
    .fork({ keepTransactionContext: true })
    .find(ApiKeySchema, { account: accountId }, { orderBy: { createdAt: 'asc' } });
}

/** A key that still authenticates at `now`: neither revoked nor expired. */
const liveAt = (now: Date) => ({ revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });

/** The account's keys that still work at `now`, oldest first. */
export async function listLiveApiKeys(orm: MikroORM, accountId: string, now: Date): Promise<ApiKey[]> {
  return orm.em
    .fork()
    .find(ApiKeySchema, { account: accountId, ...liveAt(now) }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Revokes one live key of the account; null when the account has no such live key. */
export async function revokeLiveApiKey(
  orm: MikroORM,
  accountId: string,
  id: string,
  now: Date,
): Promise<ApiKey | null> {
  const em = orm.em.fork({ keepTransactionContext: true });
  const key = await em.findOne(ApiKeySchema, { id, account: accountId, ...liveAt(now) });
  if (!key) return null;
  key.revokedAt = now;
  await em.flush();
  return key;
}

/**
 * Rotation in one transaction: the live key `id` of the account expires at `oldExpiresAt` (or keeps an earlier
 * expiry), and `next` is inserted with its name and scopes. Null when the account has no such live key.
 */
export async function rotateApiKey(
  orm: MikroORM,
  accountId: string,
  id: string,
  now: Date,
  oldExpiresAt: Date,
  next: Omit<NewApiKey, 'name' | 'scopes'>,
): Promise<{ previous: ApiKey; next: ApiKey } | null> {
  return orm.em.fork({ keepTransactionContext: true }).transactional(async (em) => {
    const previous = await em.findOne(
      ApiKeySchema,
      { id, account: accountId, ...liveAt(now) },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!previous) return null;
    if (!previous.expiresAt || previous.expiresAt > oldExpiresAt) previous.expiresAt = oldExpiresAt;
    const created = em.create(ApiKeySchema, {
      ...next,
      name: previous.name ?? null,
      scopes: [...previous.scopes],
      account: accountId,
    });
    return { previous, next: created };
  });
}

/** Revokes a key (a second revoke keeps the first time). */
export async function revokeApiKey(orm: MikroORM, id: string, now: Date): Promise<ApiKey | null> {
  const em = orm.em.fork({ keepTransactionContext: true });
  const key = await em.findOne(ApiKeySchema, { id });
  if (!key) return null;
  key.revokedAt ??= now;
  await em.flush();
  return key;
}

export async function touchApiKey(db: Sql, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Serialises first starts of several processes (transaction-scoped). */
export async function lockAccountsForSetup(db: Sql): Promise<void> {
  await sql`select pg_advisory_xact_lock(7420001)`.execute(db);
}

export async function countAccounts(db: Sql): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** An account's plan, for checks made away from a request (a chain's step, an approval round's allowances). */
export async function accountPlan(db: Sql, accountId: string): Promise<Plan> {
  const row = await db
    .selectFrom('accounts')
    .select('plan')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.plan;
}

/**
 * The account's signing secret, null when it has none: what an action or chain created without a secret of its own
 * takes (docs/signatures.md). As SQL text over `accountId` (a column) for the fixed create statements, and as a
 * subquery for the builder.
 */
export function accountSigningSecretSql(accountId: string): string {
  return `(select signing_secret from accounts where id = ${accountId})`;
}
export function accountSigningSecretQuery(db: Sql, accountId: string) {
  return db.selectFrom('accounts').select('signing_secret').where('id', '=', accountId);
}

/** The account's signing secret and when it was made (both null: none). */
export async function signingSecretOf(
  db: Sql,
  accountId: string,
): Promise<{ secret: string | null; createdAt: Date | null }> {
  const row = await db
    .selectFrom('accounts')
    .select(['signing_secret', 'signing_secret_created_at'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  return { secret: row?.signing_secret ?? null, createdAt: row?.signing_secret_created_at ?? null };
}

/** Sets the account's signing secret (null: removes it); answers whether the account had one before. */
export async function setSigningSecret(
  db: Sql,
  accountId: string,
  secret: string | null,
  now: Date,
): Promise<{ had: boolean }> {
  const before = await db
    .selectFrom('accounts')
    .select('signing_secret')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  await db
    .updateTable('accounts')
    .set({ signing_secret: secret, signing_secret_created_at: secret === null ? null : now, updated_at: now })
    .where('id', '=', accountId)
    .execute();
  return { had: (before?.signing_secret ?? null) !== null };
}
