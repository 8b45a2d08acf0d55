import { initContract } from '@ts-rest/core';
import { actionsContract, quotaContract } from './routes/actions.js';
import { contactsContract } from './routes/contacts.js';
import { systemContract } from './routes/system.js';

export * from './schemas/action.js';
export * from './schemas/common.js';
export * from './schemas/contact.js';
export { Health } from './routes/system.js';
export * from './signatures.js';

const c = initContract();

/** The whole HTTP interface: server, SDK, CLI and the OpenAPI document all derive from it. */
export const contract = c.router({
  system: systemContract,
  contacts: contactsContract,
  actions: actionsContract,
  quota: quotaContract,
});

export type Contract = typeof contract;
