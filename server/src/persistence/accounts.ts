import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { LIVE_STATES } from '../domain/action/states.js';
import type { Sql } from './database.js';
import { type Account, AccountSchema, type ApiKey, ApiKeySchema, type Plan } from './entities/account.js';

export type { Account, ApiKey };

// Accounts and API keys are plain CRUD: the entity manager, one fork per operation, joining the caller's transaction
// when there is one (Database.transaction), so the change and its audit event commit together.

export async function insertAccountWithKey(
  orm: MikroORM,
  a: {
    id: string;
    name: string;
    plan: Plan;
    rateLimitFactor: number;
    signingSecret: string;
    signingSecretCreatedAt: Date;
  },
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

/** The account's signing secret, when it was made, and until when the one it replaced still signs beside it. */
export async function signingSecretOf(
  db: Sql,
  accountId: string,
): Promise<{ secret: string | null; createdAt: Date | null; previousUntil: Date | null }> {
  const row = await db
    .selectFrom('accounts')
    .select(['signing_secret', 'signing_secret_created_at', 'previous_signing_secret_until'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  return {
    secret: row?.signing_secret ?? null,
    createdAt: row?.signing_secret_created_at ?? null,
    previousUntil: row?.previous_signing_secret_until ?? null,
  };
}

/** What signs for the account at `now`: its secret, and the one a rotation replaced while their overlap lasts. */
export async function signingSecretsAt(
  db: Sql,
  accountId: string,
  now: Date,
): Promise<{ current: string | null; previous: string | null }> {
  const row = await db
    .selectFrom('accounts')
    .select(['signing_secret', 'previous_signing_secret', 'previous_signing_secret_until'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  const overlapping =
    row?.previous_signing_secret_until != null && row.previous_signing_secret_until.getTime() > now.getTime();
  return {
    current: row?.signing_secret ?? null,
    previous: overlapping ? (row?.previous_signing_secret ?? null) : null,
  };
}

/**
 * Replaces the account's signing secret (null: removes it) and re-keys what still sends with the old one: live
 * actions (series included) and unfinished chains whose secret is the account's, never one of their own. With
 * `previousUntil`, the old secret keeps signing beside the new one until then. Answers whether there was one before
 * and how many rows were re-keyed.
 */
export async function replaceSigningSecret(
  db: Sql,
  accountId: string,
  next: string | null,
  now: Date,
  previousUntil: Date | null,
): Promise<{ had: boolean; actions: number; chains: number }> {
  const before = await db
    .selectFrom('accounts')
    .select('signing_secret')
    .where('id', '=', accountId)
    // Not FOR UPDATE: that would block the key-share locks that every insert referencing the account takes (a
    // delivery's attempt row), while such a delivery holds an action this rotation is about to re-key.
    .forNoKeyUpdate()
    .executeTakeFirst();
  const old = before?.signing_secret ?? null;
  const keepOld = old !== null && next !== null && previousUntil !== null && previousUntil > now;
  await db
    .updateTable('accounts')
    .set({
      signing_secret: next,
      signing_secret_created_at: next === null ? null : now,
      previous_signing_secret: keepOld ? old : null,
      previous_signing_secret_until: keepOld ? previousUntil : null,
      updated_at: now,
    })
    .where('id', '=', accountId)
    .execute();
  if (old === null || old === next) return { had: old !== null, actions: 0, chains: 0 };
  // Locked in id order first, as workers lock what they claim and record: a rotation while deliveries are
  // being recorded then waits for them instead of deadlocking with them.
  await db
    .selectFrom('actions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('webhook_secret', '=', old)
    .where('status', 'in', [...LIVE_STATES])
    .orderBy('id')
    .forUpdate()
    .execute();
  await db
    .selectFrom('chains')
    .select('id')
    .where('account_id', '=', accountId)
    .where('webhook_secret', '=', old)
    .where('status', 'in', ['pending', 'running'])
    .orderBy('id')
    .forUpdate()
    .execute();
  const actions = await db
    .updateTable('actions')
    .set({ webhook_secret: next })
    .where('account_id', '=', accountId)
    .where('webhook_secret', '=', old)
    .where('status', 'in', [...LIVE_STATES])
    .executeTakeFirst();
  const chains = await db
    .updateTable('chains')
    .set({ webhook_secret: next })
    .where('account_id', '=', accountId)
    .where('webhook_secret', '=', old)
    .where('status', 'in', ['pending', 'running'])
    .executeTakeFirst();
  return {
    had: true,
    actions: Number(actions.numUpdatedRows),
    chains: Number(chains.numUpdatedRows),
  };
}

/** Whether the account records each action's create (`action.create`, docs/audit.md); locked for a change with `lock`. */
export async function auditActionCreateOf(db: Sql, accountId: string, lock = false): Promise<boolean> {
  let q = db.selectFrom('accounts').select('audit_action_create').where('id', '=', accountId);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirstOrThrow();
  return row.audit_action_create;
}

export async function setAuditActionCreate(
  db: Sql,
  accountId: string,
  on: boolean,
  now: Date,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ audit_action_create: on, updated_at: now })
    .where('id', '=', accountId)
    .execute();
}
