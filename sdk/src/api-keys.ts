import type {
  ApiKey,
  ApiKeyCreate,
  ApiKeyRotate,
  ApiKeyRotated,
  ApiKeyWithSecret,
  SigningSecret,
  SigningSecretRotate,
} from '@sched/contract';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import { unwrap } from './unwrap.js';

/** The account's API keys (`/v1/api-keys`); every call needs a key with the `admin` scope (else 403 `forbidden`). */
export interface ApiKeysApi {
  /** Live keys (neither revoked nor expired), oldest first, without secrets. */
  list(options?: CallOptions): Promise<ApiKey[]>;
  /** The keys one at a time: `for await (const k of sched.keys.iterate())`. */
  iterate(options?: CallOptions): AsyncGenerator<ApiKey, void, undefined>;
  /** A new key; its secret is in `key`, shown this once. `scopes` default to `read` and `write`. */
  create(body: ApiKeyCreate, options?: CallOptions): Promise<ApiKeyWithSecret>;
  /** Revokes the key at once (404 `not_found` for an unknown, revoked or expired key). */
  revoke(id: string, options?: CallOptions): Promise<void>;
  /**
   * A new secret with the same name and scopes (in `data.key`, shown once); the old secret keeps working for
   * `grace_period` (default `24h`, at most `30d`; `0s` ends it now), given back in `meta.previous_key_expires_at`.
   */
  rotate(id: string, body?: ApiKeyRotate, options?: CallOptions): Promise<ApiKeyRotated>;
}

export function apiKeysApi(raw: RawClient): ApiKeysApi {
  const list = async (o?: CallOptions) => unwrap(await raw.apiKeys.list(callArgs(o)), 200).data;
  return {
    list,
    async *iterate(o?: CallOptions) {
      yield* await list(o);
    },
    create: async (body, o) => unwrap(await raw.apiKeys.create({ body, ...callArgs(o) }), 201).data,
    revoke: async (id, o) => {
      unwrap(await raw.apiKeys.revoke({ params: { id }, ...callArgs(o) }), 204);
    },
    rotate: async (id, body = {}, o) =>
      unwrap(await raw.apiKeys.rotate({ params: { id }, body, ...callArgs(o) }), 201),
  };
}

/**
 * The account's signing secret (`/v1/signing-secret`, `admin` scope): every account is made with one, and actions
 * and chains without a `webhook_secret` of their own are signed with it (docs/signatures.md).
 */
export interface SigningSecretApi {
  /** The secret (`whsec_...`), when it was made, and the end of a rotation's overlap; nulls when removed. */
  get(options?: CallOptions): Promise<SigningSecret>;
  /**
   * A new secret, replacing the current one (a rotation): live actions, series and chains follow it at once, and
   * through `overlap` (default `24h`; `0s` after a leak) requests also carry a signature with the replaced one, so
   * receivers verifying with either accept them (`verifyWebhook({ secret: [newer, older], ... })`).
   */
  create(body?: SigningSecretRotate, options?: CallOptions): Promise<SigningSecret>;
  /** No secret: what the account sends without a secret of its own is no longer signed. */
  delete(options?: CallOptions): Promise<void>;
}

export function signingSecretApi(raw: RawClient): SigningSecretApi {
  return {
    get: async (o) => unwrap(await raw.apiKeys.getSigningSecret(callArgs(o)), 200).data,
    create: async (body = {}, o) =>
      unwrap(await raw.apiKeys.createSigningSecret({ body, ...callArgs(o) }), 201).data,
    delete: async (o) => {
      unwrap(await raw.apiKeys.deleteSigningSecret(callArgs(o)), 204);
    },
  };
}
