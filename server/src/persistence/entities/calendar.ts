import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { AccountSchema } from './account.js';

/** An account's closed days (`POST /v1/calendars`): its own dates, merged with a country's public holidays. */
export const CalendarSchema = defineEntity({
  name: 'Calendar',
  tableName: 'calendars',
  indexes: [{ properties: ['account', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    timezone: p.string().length(64),
    /** `YYYY-MM-DD`, sorted, no repeats. */
    dates: p.array().default([]),
    /** `<country>[-<region>]` of the holidays package, upper-case; null: none. */
    holidays: p.string().length(16).nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Calendar = InferEntity<typeof CalendarSchema>;
