import type { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Sql } from './database.js';
import { type Account, AccountSchema, type ApiKey, ApiKeySchema, type Plan } from './entities/account.js';

export type { Account, ApiKey };

// Accounts and API keys are plain CRUD: the entity manager, one fork per operation.

export async function insertAccountWithKey(
  orm: MikroORM,
  a: { id: string; name: string; plan: Plan; rateLimitFactor: number },
  k: { id: string; name: string | null; prefix: string; keyHash: string; scopes: string[] },
): Promise<Account> {
  const em = orm.em.fork();
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
  const em = orm.em.fork();
  const account = await em.findOne(AccountSchema, { id });
  if (!account) return null;
  em.assign(account, changes);
  await em.flush();
  return account;
}

export async function listAccounts(orm: MikroORM): Promise<Account[]> {
  return orm.em.fork().find(AccountSchema, {}, { orderBy: { createdAt: 'asc' } });
}

export async function findAccount(orm: MikroORM, id: string): Promise<Account | null> {
  return orm.em.fork().findOne(AccountSchema, { id });
}

export async function insertApiKey(
  orm: MikroORM,
  accountId: string,
  k: { id: string; name: string | null; prefix: string; keyHash: string; scopes: string[] },
): Promise<ApiKey> {
  const em = orm.em.fork();
  const key = em.create(ApiKeySchema, { ...k, account: accountId });
  await em.flush();
  return key;
}

export async function listApiKeys(orm: MikroORM, accountId: string): Promise<ApiKey[]> {
  return orm.em.fork().find(ApiKeySchema, { account: accountId }, { orderBy: { createdAt: 'asc' } });
}

/** Revokes a key (a second revoke keeps the first time). */
export async function revokeApiKey(orm: MikroORM, id: string, now: Date): Promise<ApiKey | null> {
  const em = orm.em.fork();
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
