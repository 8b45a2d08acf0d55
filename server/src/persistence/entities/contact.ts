import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { AccountSchema } from './account.js';

export const ContactSchema = defineEntity({
  name: 'Contact',
  tableName: 'contacts',
  indexes: [{ properties: ['account', 'name'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    email: p.string().length(255).nullable(),
    phone: p.string().length(16).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Contact = InferEntity<typeof ContactSchema>;
