import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

import { PLANS, type Plan } from '../../domain/quota/plans.js';

export { PLANS, type Plan };

/** A tenant. Every other row belongs to exactly one account. */
export const AccountSchema = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(255),
    plan: p.enum([...PLANS]),
    /** Multiplies the default rate limits (domain/rate-limit/policy.ts) for this account. */
    rateLimitFactor: p.double().default(1),
    /**
     * What an action or chain created without a `webhook_secret` of its own is created with, and what a rotation
     * re-keys live ones to (docs/signatures.md); kept as given, since signing needs it. Null: none.
     */
    signingSecret: p.string().length(255).nullable(),
    signingSecretCreatedAt: p.datetime().nullable(),
    /** The secret a rotation replaced: requests carry a second signature with it until `previousSigningSecretUntil`. */
    previousSigningSecret: p.string().length(255).nullable(),
    previousSigningSecretUntil: p.datetime().nullable(),
    /** Whether each action's create is an audit event (`action.create`, a data event: docs/audit.md). */
    auditActionCreate: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Account = InferEntity<typeof AccountSchema>;

/** API key: only the SHA-256 of the secret is stored; `prefix` lets people tell keys apart. */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255).nullable(),
    prefix: p.string().length(32),
    keyHash: p.string().length(64).unique(),
    scopes: p.array(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    /** When the key stops working: chosen at create, or the end of a rotation's grace period. */
    expiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;

/**
 * A console sign-in (docs/console.md): the browser holds a random session id in an HttpOnly cookie; only its
 * SHA-256 is stored. It acts as the API key it was opened with (scopes, account, rate limits), and ends after
 * 12 idle hours, on sign-out, or when that key is revoked or deleted.
 */
export const ConsoleSessionSchema = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  indexes: [{ properties: ['lastSeenAt'] }],
  properties: {
    idHash: p.string().length(64).primary(),
    apiKey: () => p.manyToOne(ApiKeySchema).deleteRule('cascade'),
    createdAt: p.datetime(),
    lastSeenAt: p.datetime(),
  },
});
