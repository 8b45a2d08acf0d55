import { defineEntity, p } from '@mikro-orm/core';

/** One fixed window of one rate-limit bucket; shared by every API process through PostgreSQL. */
export const RateLimitWindowSchema = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_windows',
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    bucket: p.string().primary(),
    windowStart: p.datetime().primary(),
    hits: p.integer().default(0),
    expiresAt: p.datetime(),
  },
});

/**
 * When an account last wrote through the API, kept only while a read replica is configured: its reads stay on the
 * primary for a few seconds after (domain/reads/route.ts), whichever API process serves them. Unlogged: it is not
 * replicated (only the primary reads it) and costs no WAL; a crash empties it, which at worst serves a read from the
 * replica a moment early.
 */
export const AccountWriteSchema = defineEntity({
  name: 'AccountWrite',
  tableName: 'account_writes',
  properties: {
    accountId: p.uuid().primary(),
    writtenAt: p.datetime(),
  },
});
