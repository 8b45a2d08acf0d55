import { randomBytes, randomUUID } from 'node:crypto';
import { buildApiKey, type Scope } from '../domain/auth/api-key.js';
import { asDate, type Db, isoOrNull } from '../persistence/db.js';
import type { Plan } from '../persistence/entities/account.js';
import { NotFoundError } from './errors.js';

/** Who is calling: resolved from the Bearer key on every request. */
export interface Principal {
  accountId: string;
  plan: Plan;
  rateLimitFactor: number;
  keyId: string;
  scopes: Scope[];
}

export interface AccountView {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_factor: number;
  created_at: string;
}

export interface ApiKeyView {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: Scope[];
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/**
 * The holder of a live API key, found by the key's hash (`$1`): one row, or none for an unknown or revoked key.
 * The lookup is by hash, so timing reveals nothing about the secret; there is no cache, so a revocation holds at
 * once in every process. `RateLimiter.hitAsKeyHolder` runs it together with the request's count.
 */
export const KEY_HOLDER_SQL = `select k.id as key_id, k.scopes, a.id as account_id, a.plan, a.rate_limit_factor,
       (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as stale
  from api_keys k join accounts a on a.id = k.account_id
 where k.key_hash = $1 and k.revoked_at is null`;

export interface KeyHolderRow {
  key_id: string;
  scopes: Scope[];
  account_id: string;
  plan: Plan;
  rate_limit_factor: number;
  stale: boolean;
}

interface AccountRow {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_factor: number;
  created_at: Date;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: Scope[];
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const accountView = (r: AccountRow): AccountView => ({
  id: r.id,
  name: r.name,
  plan: r.plan,
  rate_limit_factor: Number(r.rate_limit_factor),
  created_at: asDate(r.created_at).toISOString(),
});
const keyView = (r: KeyRow): ApiKeyView => ({
  id: r.id,
  account_id: r.account_id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes,
  last_used_at: isoOrNull(r.last_used_at),
  revoked_at: isoOrNull(r.revoked_at),
  created_at: asDate(r.created_at).toISOString(),
});

/** Accounts and API keys: used by the admin CLI verbs and by request authentication. */
export class AccountService {
  constructor(private readonly db: Db) {}

  async createAccount(input: {
    name: string;
    plan: Plan;
    rateLimitFactor?: number;
  }): Promise<{ account: AccountView; apiKey: string }> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<AccountRow>(
        `insert into accounts (id, name, plan, rate_limit_factor, created_at, updated_at)
         values ($1, $2, $3, $4, now(), now()) returning *`,
        [randomUUID(), input.name, input.plan, input.rateLimitFactor ?? 1],
      );
      const key = buildApiKey(randomBytes(32));
      await tx.query(
        `insert into api_keys (id, account_id, name, prefix, key_hash, scopes, created_at)
         values ($1, $2, $3, $4, $5, $6, now())`,
        [randomUUID(), row!.id, 'default', key.prefix, key.hash, ['read', 'write']],
      );
      return { account: accountView(row!), apiKey: key.secret };
    });
  }

  async updateAccount(
    id: string,
    input: { name?: string; plan?: Plan; rateLimitFactor?: number },
  ): Promise<AccountView> {
    const [row] = await this.db.query<AccountRow>(
      `update accounts set name = coalesce($2, name), plan = coalesce($3, plan),
         rate_limit_factor = coalesce($4, rate_limit_factor), updated_at = now()
       where id = $1 returning *`,
      [id, input.name ?? null, input.plan ?? null, input.rateLimitFactor ?? null],
    );
    if (!row) throw new NotFoundError('account');
    return accountView(row);
  }

  async listAccounts(): Promise<AccountView[]> {
    return (await this.db.query<AccountRow>('select * from accounts order by created_at')).map(accountView);
  }

  async getAccount(id: string): Promise<AccountView> {
    const [row] = await this.db.query<AccountRow>('select * from accounts where id = $1', [id]);
    if (!row) throw new NotFoundError('account');
    return accountView(row);
  }

  async createKey(
    accountId: string,
    scopes: Scope[],
    name?: string,
  ): Promise<{ key: ApiKeyView; apiKey: string }> {
    await this.getAccount(accountId);
    const key = buildApiKey(randomBytes(32));
    const [row] = await this.db.query<KeyRow>(
      `insert into api_keys (id, account_id, name, prefix, key_hash, scopes, created_at)
       values ($1, $2, $3, $4, $5, $6, now()) returning *`,
      [randomUUID(), accountId, name ?? null, key.prefix, key.hash, scopes],
    );
    return { key: keyView(row!), apiKey: key.secret };
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    const rows = await this.db.query<KeyRow>(
      'select * from api_keys where account_id = $1 order by created_at',
      [accountId],
    );
    return rows.map(keyView);
  }

  async revokeKey(keyId: string): Promise<ApiKeyView> {
    const [row] = await this.db.query<KeyRow>(
      'update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning *',
      [keyId],
    );
    if (!row) throw new NotFoundError('API key');
    return keyView(row);
  }

  /** The caller a key-holder row describes; records the key's use at most once a minute. */
  principalOf(row: KeyHolderRow): Principal {
    if (row.stale) {
      // At most once a minute, so a busy key does not write on every request.
      void this.db
        .query('update api_keys set last_used_at = now() where id = $1', [row.key_id])
        .catch(() => undefined);
    }
    return {
      accountId: row.account_id,
      plan: row.plan,
      rateLimitFactor: Number(row.rate_limit_factor),
      keyId: row.key_id,
      scopes: row.scopes,
    };
  }

  /** On first start with an empty database: one Business account so a new user can call the API at once. */
  async ensureDefaultAccount(): Promise<{ account: AccountView; apiKey: string } | null> {
    return this.db.transaction(async (tx) => {
      // Serialises concurrent first starts of several processes.
      await tx.query('select pg_advisory_xact_lock(7420001)');
      const [{ count } = { count: '0' }] = await tx.query<{ count: string }>('select count(*) from accounts');
      if (Number(count) > 0) return null;
      const id = randomUUID();
      const [row] = await tx.query<AccountRow>(
        `insert into accounts (id, name, plan, rate_limit_factor, created_at, updated_at)
         values ($1, 'default', 'business', 1, now(), now()) returning *`,
        [id],
      );
      const key = buildApiKey(randomBytes(32));
      await tx.query(
        `insert into api_keys (id, account_id, name, prefix, key_hash, scopes, created_at)
         values ($1, $2, 'default', $3, $4, $5, now())`,
        [randomUUID(), id, key.prefix, key.hash, ['read', 'write']],
      );
      return { account: accountView(row!), apiKey: key.secret };
    });
  }
}
