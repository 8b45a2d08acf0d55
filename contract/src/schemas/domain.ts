import { z } from 'zod';
import { NullableTimestamp } from './common.js';

/** How a domain was verified: `dns` (TXT record) or `file` (`/.well-known/sched-verify.txt`). */
export const DOMAIN_VERIFICATION_METHODS = Object.freeze(['dns', 'file'] as const);

export const DomainSummary = z
  .object({
    domain: z.string(),
    verified: z.boolean(),
    verified_at: NullableTimestamp,
    method: z.enum(DOMAIN_VERIFICATION_METHODS).nullable(),
  })
  .meta({
    id: 'Domain',
    description: 'A destination hostname the account has sent to or started verifying.',
  });

export const VerificationMethods = z
  .object({
    dns: z.object({
      type: z.literal('TXT'),
      /** The exact hostname the record goes on. */
      name: z.string(),
      value: z.string(),
    }),
    file: z.object({ url: z.string(), content: z.string() }),
  })
  .meta({ id: 'DomainVerificationMethods' });

export const DomainVerification = z
  .object({
    domain: z.string(),
    verification_token: z.string(),
    verification_methods: VerificationMethods,
  })
  .meta({
    id: 'DomainVerification',
    description:
      'What to publish: the TXT record on the exact hostname, or the file; either proves the domain. The token stays the same until the domain is removed.',
  });

/** Why each method failed at the last check; null for a method that was not tried or succeeded. */
export const DomainCheckErrors = z
  .object({ dns: z.string().nullable(), file: z.string().nullable() })
  .meta({ id: 'DomainCheckErrors' });

export const DomainStatus = z.enum(['unverified', 'pending', 'verified']).meta({
  id: 'DomainStatus',
  description:
    '`unverified`: used, no verification started; `pending`: a token is out and checks run; `verified`: done (it does not expire).',
});

export const DomainDetail = DomainSummary.extend({
  status: DomainStatus,
  verification_token: z.string().nullable(),
  verification_methods: VerificationMethods.nullable(),
  usage: z.object({
    today: z.number().int(),
    this_month: z.number().int(),
    day_limit: z.number().int(),
    month_limit: z.number().int(),
  }),
  last_check_at: NullableTimestamp,
  next_check_at: NullableTimestamp,
  last_errors: DomainCheckErrors.nullable(),
}).meta({
  id: 'DomainDetail',
  description:
    'Status and instructions. `usage` counts actions created to this hostname in the current UTC day and month while it was unverified; the limits apply only then.',
});

export const DomainCheck = DomainSummary.extend({ errors: DomainCheckErrors }).meta({
  id: 'DomainCheck',
  description:
    'Result of checking both methods now. `errors` says why each method failed (null when verified).',
});

export type DomainSummary = z.infer<typeof DomainSummary>;
export type DomainVerification = z.infer<typeof DomainVerification>;
export type DomainDetail = z.infer<typeof DomainDetail>;
export type DomainCheck = z.infer<typeof DomainCheck>;
