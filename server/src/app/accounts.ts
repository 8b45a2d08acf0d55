import { randomBytes, randomUUID } from 'node:crypto';
import { buildApiKey, type Scope } from '../domain/auth/api-key.js';
import {
  type Account,
  type ApiKey,
  countAccounts,
  findAccount,
  insertAccountWithKey,
  insertApiKey,
  listAccounts,
  listApiKeys,
  lockAccountsForSetup,
  revokeApiKey,
  touchApiKey,
  updateAccount,
} from '../persistence/accounts.js';
import type { Database } from '../persistence/database.js';
import type { Plan } from '../persistence/entities/account.js';
import type { KeyHolder } from '../persistence/rate-limit-windows.js';
import { NotFoundError } from './errors.js';
import type { Clock } from './ports.js';

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

const accountView = (a: Account): AccountView => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  rate_limit_factor: Number(a.rateLimitFactor),
  created_at: a.createdAt.toISOString(),
});
const keyView = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  account_id: k.account.id,
  name: k.name ?? null,
  prefix: k.prefix,
  scopes: k.scopes as Scope[],
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
  created_at: k.createdAt.toISOString(),
});

/** Accounts and API keys: used by the admin CLI verbs and by request authentication. */
export class AccountService {
  /** When this process last recorded each key's use (principalOf). */
  private readonly touchedAt = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock = () => new Date(),
  ) {}

  async createAccount(input: {
    name: string;
    plan: Plan;
    rateLimitFactor?: number;
  }): Promise<{ account: AccountView; apiKey: string }> {
    const key = buildApiKey(randomBytes(32));
    const account = await insertAccountWithKey(
      this.database.orm,
      { id: randomUUID(), name: input.name, plan: input.plan, rateLimitFactor: input.rateLimitFactor ?? 1 },
      { id: randomUUID(), name: 'default', prefix: key.prefix, keyHash: key.hash, scopes: ['read', 'write'] },
    );
    return { account: accountView(account), apiKey: key.secret };
  }

  async updateAccount(
    id: string,
    input: { name?: string; plan?: Plan; rateLimitFactor?: number },
  ): Promise<AccountView> {
    const account = await updateAccount(this.database.orm, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.plan !== undefined ? { plan: input.plan } : {}),
      ...(input.rateLimitFactor !== undefined ? { rateLimitFactor: input.rateLimitFactor } : {}),
    });
    if (!account) throw new NotFoundError('account');
    return accountView(account);
  }

  async listAccounts(): Promise<AccountView[]> {
    return (await listAccounts(this.database.orm)).map(accountView);
  }

  async getAccount(id: string): Promise<AccountView> {
    const account = await findAccount(this.database.orm, id);
    if (!account) throw new NotFoundError('account');
    return accountView(account);
  }

  async createKey(
    accountId: string,
    scopes: Scope[],
    name?: string,
  ): Promise<{ key: ApiKeyView; apiKey: string }> {
    await this.getAccount(accountId);
    const key = buildApiKey(randomBytes(32));
    const row = await insertApiKey(this.database.orm, accountId, {
      id: randomUUID(),
      name: name ?? null,
      prefix: key.prefix,
      keyHash: key.hash,
      scopes,
    });
    return { key: keyView(row), apiKey: key.secret };
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    return (await listApiKeys(this.database.orm, accountId)).map(keyView);
  }

  async revokeKey(keyId: string): Promise<ApiKeyView> {
    const key = await revokeApiKey(this.database.orm, keyId, this.clock());
    if (!key) throw new NotFoundError('API key');
    return keyView(key);
  }

  /** The caller a key holder describes; records the key's use at most once a minute. */
  principalOf(holder: KeyHolder): Principal {
    if (holder.stale) {
      // At most once a minute, so a busy key does not write on every request; the requests of a burst all read
      // the key as stale, so this process also remembers its own write (a hint only: the row stays the record).
      const now = this.clock();
      const touched = this.touchedAt.get(holder.key_id);
      if (touched === undefined || now.getTime() - touched >= 60_000) {
        if (this.touchedAt.size >= 10_000) this.touchedAt.clear();
        this.touchedAt.set(holder.key_id, now.getTime());
        void touchApiKey(this.database.sql, holder.key_id, now).catch(() => undefined);
      }
    }
    return {
      accountId: holder.account_id,
      plan: holder.plan,
      rateLimitFactor: holder.rate_limit_factor,
      keyId: holder.key_id,
      scopes: holder.scopes as Scope[],
    };
  }

  /** On first start with an empty database: one Business account so a new user can call the API at once. */
  async ensureDefaultAccount(): Promise<{ account: AccountView; apiKey: string } | null> {
    return this.database.transaction(async (db) => {
      await lockAccountsForSetup(db);
      if ((await countAccounts(db)) > 0) return null;
      return this.createAccount({ name: 'default', plan: 'business' });
    });
  }
}
