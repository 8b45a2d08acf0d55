import { defineEntity, p } from '@mikro-orm/core';
import type { VerificationMethod } from '../../domain/domains/rules.js';
import { AccountSchema } from './account.js';

/**
 * A destination domain of one account: its verification and its use, counted per UTC day and month in
 * the row itself, so one upsert at create both counts and refuses (the row lock orders racing creates).
 */
export const DomainSchema = defineEntity({
  name: 'Domain',
  tableName: 'domains',
  indexes: [
    // The background re-check's scan.
    {
      name: 'domains_next_check_index',
      expression:
        'create index "domains_next_check_index" on "domains" ("next_check_at") where "next_check_at" is not null',
    },
  ],
  properties: {
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade').primary(),
    domain: p.string().length(253).primary(),
    verificationToken: p.string().length(64).nullable(),
    verified: p.boolean().default(false),
    verifiedAt: p.datetime().nullable(),
    method: p.string().length(8).$type<VerificationMethod>().nullable(),
    /** When the current verification was started (POST verify); background checks run for 24 h from it. */
    verificationStartedAt: p.datetime().nullable(),
    lastCheckAt: p.datetime().nullable(),
    nextCheckAt: p.datetime().nullable(),
    checkAttempts: p.integer().default(0),
    /** Why each method failed at the last check: `{dns?: string, file?: string}`. */
    lastErrors: p.json<Partial<Record<VerificationMethod, string>>>().nullable(),
    /** First instant of the UTC day `dayCount` counts. */
    dayStart: p.datetime(),
    dayCount: p.integer().default(0),
    monthStart: p.datetime(),
    monthCount: p.integer().default(0),
    createdAt: p.datetime(),
    /** Set by DELETE: the domain leaves the list but its counts stay, so a delete resets no threshold. */
    removedAt: p.datetime().nullable(),
  },
});
