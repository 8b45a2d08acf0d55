import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiKey as ApiKeyResource, ApiKeyWithSecret } from '@sched/contract';
import { buildApiKey, MAX_ROTATION_GRACE_MS, OWNER_SCOPES, type Scope } from '../domain/auth/api-key.js';
import type { SendSource } from '../domain/domains/rules.js';
import { parseDuration } from '../domain/schedule/duration.js';
import {
  type Account,
  type ApiKey,
  countAccounts,
  findAccount,
  insertAccountWithKey,
  insertApiKey,
  listAccounts,
  listApiKeys,
  listLiveApiKeys,
  lockAccountsForSetup,
  revokeApiKey,
  revokeLiveApiKey,
  rotateApiKey,
  touchApiKey,
  updateAccount,
} from '../persistence/accounts.js';
import type { Database } from '../persistence/database.js';
import type { Plan } from '../persistence/entities/account.js';
import type { KeyHolder } from '../persistence/rate-limit-windows.js';
import type { AuditActor } from '../domain/audit/chain.js';
import { type AuditRecord, OPERATOR_ACTOR, recordAudit, SYSTEM_ACTOR } from './audit.js';
import { NotFoundError, ValidationError } from './errors.js';
import { systemClock } from './clock.js';
import type { Clock } from './ports.js';
import { newSigningSecret, SigningSecrets } from './signing-secrets.js';

/** Who is calling: resolved from the Bearer key on every request. */
export interface Principal {
  accountId: string;
  plan: Plan;
  rateLimitFactor: number;
  /**
   * Whether the account records its creates (`action.create`), as read with the key: a create left out of the log
   * skips printing its event. Unknown where the principal was not read with its key (the write decides then).
   */
  recordsCreates?: boolean;
  keyId: string;
  scopes: Scope[];
}

/** The key id a template trigger acts under (app/templates/trigger.ts). */
export const triggerKeyId = (templateId: string) => `template:${templateId}`;

/** Whose act a principal's creates are: its own, or a public trigger's, counted apart. */
export function sendSourceOf(principal: Pick<Principal, 'keyId'>): SendSource {
  return principal.keyId.startsWith(triggerKeyId('')) ? 'trigger' : 'api';
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
  expires_at: string | null;
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
  expires_at: k.expiresAt?.toISOString() ?? null,
  created_at: k.createdAt.toISOString(),
});
/** A key as the API shows it to its own account (`/v1/api-keys`). */
const apiKeyResource = (k: ApiKey): ApiKeyResource => ({
  id: k.id,
  name: k.name ?? null,
  prefix: k.prefix,
  scopes: k.scopes as Scope[],
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
});

/** A requested expiry: an ISO time in the future, or none. */
function expiryOf(text: string | null | undefined, now: Date): Date | null {
  if (text === undefined || text === null) return null;
  const at = new Date(text);
  if (!(at.getTime() > now.getTime())) throw ValidationError.field('expires_at', 'must be in the future');
  return at;
}

/** Accounts and API keys: used by the admin CLI verbs and by request authentication. */
export class AccountService {
  /** When this process last recorded each key's use (principalOf). */
  private readonly touchedAt = new Map<string, number>();

  /** The account's signing secret: `/v1/signing-secret`, and what signs each request. */
  readonly signing: SigningSecrets;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock = systemClock,
  ) {
    this.signing = new SigningSecrets(database, clock);
  }

  /** An account and its first key: `sched accounts create` (the operator's), or the first start's (the service's). */
  async createAccount(
    input: { name: string; plan: Plan; rateLimitFactor?: number },
    actor: AuditActor = OPERATOR_ACTOR,
  ): Promise<{ account: AccountView; apiKey: string }> {
    const key = buildApiKey(randomBytes(32));
    const keyRow = {
      id: randomUUID(),
      name: 'default',
      prefix: key.prefix,
      keyHash: key.hash,
      scopes: [...OWNER_SCOPES],
    };
    const account = await this.database.transaction(async (db) => {
      const created = await insertAccountWithKey(
        this.database.orm,
        {
          id: randomUUID(),
          name: input.name,
          plan: input.plan,
          rateLimitFactor: input.rateLimitFactor ?? 1,
          // Signed by default: whatever the account sends without a secret of its own is signed from the start.
          signingSecret: newSigningSecret(),
          signingSecretCreatedAt: this.clock(),
        },
        keyRow,
      );
      await recordAudit(
        db,
        created.id,
        {
          action: 'account.create',
          actor,
          resource: { type: 'account', id: created.id },
          details: {
            name: created.name,
            plan: created.plan,
            rate_limit_factor: Number(created.rateLimitFactor),
          },
        },
        keyCreated(keyRow, actor),
      );
      return created;
    });
    return { account: accountView(account), apiKey: key.secret };
  }

  async updateAccount(
    id: string,
    input: { name?: string; plan?: Plan; rateLimitFactor?: number },
  ): Promise<AccountView> {
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.plan !== undefined ? { plan: input.plan } : {}),
      ...(input.rateLimitFactor !== undefined ? { rateLimitFactor: input.rateLimitFactor } : {}),
    };
    const account = await this.database.transaction(async (db) => {
      const before = await findAccount(this.database.orm, id);
      if (!before) throw new NotFoundError('account');
      const from = accountView(before);
      const updated = (await updateAccount(this.database.orm, id, changes))!;
      const to = accountView(updated);
      // The settings that changed, from and to (name, plan, rate limit factor: none of them secret).
      const changed = (['name', 'plan', 'rate_limit_factor'] as const).filter((k) => from[k] !== to[k]);
      await recordAudit(db, id, {
        action: 'account.update',
        actor: OPERATOR_ACTOR,
        resource: { type: 'account', id },
        details: Object.fromEntries(changed.map((k) => [k, { from: from[k], to: to[k] }])),
      });
      return updated;
    });
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
    const fields = { id: randomUUID(), name: name ?? null, prefix: key.prefix, keyHash: key.hash, scopes };
    const row = await this.database.transaction(async (db) => {
      const inserted = await insertApiKey(this.database.orm, accountId, fields);
      await recordAudit(db, accountId, keyCreated(fields, OPERATOR_ACTOR));
      return inserted;
    });
    return { key: keyView(row), apiKey: key.secret };
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    return (await listApiKeys(this.database.orm, accountId)).map(keyView);
  }

  async revokeKey(keyId: string): Promise<ApiKeyView> {
    const key = await this.database.transaction(async (db) => {
      const revoked = await revokeApiKey(this.database.orm, keyId, this.clock());
      if (!revoked) throw new NotFoundError('API key');
      await recordAudit(db, revoked.account.id, keyRevoked(revoked, OPERATOR_ACTOR));
      return revoked;
    });
    return keyView(key);
  }

  /** `GET /v1/api-keys`: the account's keys that still work, without secrets. */
  async listLiveKeys(accountId: string): Promise<ApiKeyResource[]> {
    return (await listLiveApiKeys(this.database.orm, accountId, this.clock())).map(apiKeyResource);
  }

  /** `POST /v1/api-keys`: a new key of the caller's account; its secret is answered this once. */
  async createAccountKey(
    accountId: string,
    input: { name: string; scopes: Scope[]; expires_at?: string | null | undefined },
  ): Promise<ApiKeyWithSecret> {
    const expiresAt = expiryOf(input.expires_at, this.clock());
    const key = buildApiKey(randomBytes(32));
    const fields = {
      id: randomUUID(),
      name: input.name,
      prefix: key.prefix,
      keyHash: key.hash,
      scopes: [...new Set(input.scopes)],
      expiresAt,
    };
    const row = await this.database.transaction(async (db) => {
      const inserted = await insertApiKey(this.database.orm, accountId, fields);
      await recordAudit(db, accountId, keyCreated(fields));
      return inserted;
    });
    return { ...apiKeyResource(row), key: key.secret };
  }

  /** `DELETE /v1/api-keys/{id}`: the key stops working at once (authentication reads the row every request). */
  async revokeAccountKey(accountId: string, keyId: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const revoked = await revokeLiveApiKey(this.database.orm, accountId, keyId, this.clock());
      if (!revoked) throw new NotFoundError('API key');
      await recordAudit(db, accountId, keyRevoked(revoked));
    });
  }

  /**
   * `POST /v1/api-keys/{id}/rotate`: a new secret with the same name and scopes; the old one works for
   * `grace_period` more (at most 30 days; an earlier expiry of its own stays).
   */
  async rotateAccountKey(
    accountId: string,
    keyId: string,
    input: { grace_period: string; expires_at?: string | null | undefined },
  ): Promise<{ next: ApiKeyWithSecret; previousId: string; previousExpiresAt: string }> {
    const now = this.clock();
    const graceMs = /^0+[smhdw]$/.test(input.grace_period) ? 0 : parseDuration(input.grace_period);
    if (graceMs === null || graceMs > MAX_ROTATION_GRACE_MS)
      throw ValidationError.field('grace_period', 'must be a duration of at most 30d, such as 24h or 0s');
    const expiresAt = expiryOf(input.expires_at, now);
    const key = buildApiKey(randomBytes(32));
    const rotated = await this.database.transaction(async (db) => {
      const r = await rotateApiKey(
        this.database.orm,
        accountId,
        keyId,
        now,
        new Date(now.getTime() + graceMs),
        { id: randomUUID(), prefix: key.prefix, keyHash: key.hash, expiresAt },
      );
      if (!r) throw new NotFoundError('API key');
      await recordAudit(db, accountId, {
        action: 'api_key.rotate',
        resource: { type: 'api_key', id: r.previous.id },
        details: {
          prefix: r.previous.prefix,
          grace_period: input.grace_period,
          previous_expires_at: r.previous.expiresAt?.toISOString() ?? null,
          next_key_id: r.next.id,
          next_prefix: r.next.prefix,
        },
      });
      return r;
    });
    return {
      next: { ...apiKeyResource(rotated.next), key: key.secret },
      previousId: rotated.previous.id,
      previousExpiresAt: (rotated.previous.expiresAt ?? now).toISOString(),
    };
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
      recordsCreates: holder.audit_action_create,
      keyId: holder.key_id,
      scopes: holder.scopes as Scope[],
    };
  }

  /** On first start with an empty database: one Business account so a new user can call the API at once. */
  async ensureDefaultAccount(): Promise<{ account: AccountView; apiKey: string } | null> {
    return this.database.transaction(async (db) => {
      await lockAccountsForSetup(db);
      if ((await countAccounts(db)) > 0) return null;
      return this.createAccount({ name: 'default', plan: 'business' }, SYSTEM_ACTOR);
    });
  }
}

/** A new key in the audit log: its prefix and scopes, never its secret nor the secret's hash. */
function keyCreated(
  k: { id: string; name: string | null; prefix: string; scopes: string[]; expiresAt?: Date | null },
  actor?: AuditRecord['actor'],
): AuditRecord {
  return {
    action: 'api_key.create',
    actor,
    resource: { type: 'api_key', id: k.id },
    details: {
      name: k.name,
      prefix: k.prefix,
      scopes: k.scopes,
      expires_at: k.expiresAt?.toISOString() ?? null,
    },
  };
}

function keyRevoked(k: ApiKey, actor?: AuditRecord['actor']): AuditRecord {
  return {
    action: 'api_key.revoke',
    actor,
    resource: { type: 'api_key', id: k.id },
    details: { name: k.name ?? null, prefix: k.prefix },
  };
}
