import { initContract } from '@ts-rest/core';
import { actionsContract, quotaContract } from './routes/actions.js';
import { grantsContract } from './routes/grants.js';
import { alertRulesContract } from './routes/alert-rules.js';
import { apiKeysContract } from './routes/api-keys.js';
import { auditContract, auditExportContract } from './routes/audit.js';
import { integrationsContract } from './routes/integrations.js';
import { outboxContract } from './routes/outbox.js';
import {
  channelsContract,
  remindersContract,
  responsesContract,
  teamMembersContract,
} from './routes/approvals.js';
import { bulkOperationsContract } from './routes/bulk-operations.js';
import { calendarsContract } from './routes/calendars.js';
import { chainsContract } from './routes/chains.js';
import { contactsContract } from './routes/contacts.js';
import { destinationsContract } from './routes/destinations.js';
import { domainsContract } from './routes/domains.js';
import { schedulesContract } from './routes/schedules.js';
import { systemContract } from './routes/system.js';
import { templatesContract, triggerContract } from './routes/templates.js';

export * from './schemas/action.js';
export * from './schemas/alert.js';
export * from './schemas/api-key.js';
export * from './schemas/audit.js';
export * from './schemas/callback.js';
export * from './schemas/approval.js';
export * from './schemas/bulk.js';
export * from './schemas/chain.js';
export * from './schemas/common.js';
export * from './schemas/contact.js';
export * from './schemas/grant.js';
export * from './schemas/destination.js';
export * from './schemas/domain.js';
export * from './schemas/schedule.js';
export * from './schemas/calendar.js';
export * from './schemas/window.js';
export * from './schemas/template.js';
export { responsesContract } from './routes/approvals.js';
export { Health } from './routes/system.js';
export { OutboxMessage } from './routes/outbox.js';
export type { RouteMeta, RouteRateLimit } from './openapi.js';
export { issueMessage } from './messages.js';
export * from './headers.js';
export * from './mcp.js';
export * from './signatures.js';
export * from './vocabulary.js';

const c = initContract();

/** Every JSON endpoint: implemented through ts-rest by the server, and the SDK's client. */
export const apiContract = c.router({
  system: systemContract,
  contacts: contactsContract,
  actions: actionsContract,
  chains: chainsContract,
  quota: quotaContract,
  channels: channelsContract,
  teamMembers: teamMembersContract,
  templates: templatesContract,
  domains: domainsContract,
  bulkOperations: bulkOperationsContract,
  destinations: destinationsContract,
  apiKeys: apiKeysContract,
  outbox: outboxContract,
  schedules: schedulesContract,
  audit: auditContract,
  reminders: remindersContract,
  alertRules: alertRulesContract,
  calendars: calendarsContract,
  grants: grantsContract,
});

/**
 * The whole HTTP interface, for the OpenAPI document: the JSON API plus the response links, which the server
 * serves as pages (HTML or JSON by `Accept`) outside ts-rest, and the public template trigger.
 */
export const contract = c.router({
  ...apiContract,
  responses: responsesContract,
  trigger: triggerContract,
  auditExport: auditExportContract,
  integrations: integrationsContract,
});

export type Contract = typeof contract;
