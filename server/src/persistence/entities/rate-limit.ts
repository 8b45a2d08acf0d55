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
