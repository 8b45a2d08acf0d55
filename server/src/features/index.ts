import { actionsFeature } from './actions.js';
import { alertsFeature } from './alerts.js';
import { approvalsFeature } from './approvals.js';
import { auditFeature } from './audit.js';
import { bulkFeature } from './bulk.js';
import { calendarsFeature } from './calendars.js';
import { chainsFeature } from './chains.js';
import { consoleFeature } from './console.js';
import { destinationsFeature } from './destinations.js';
import { directoryFeature } from './directory.js';
import { domainsFeature } from './domains.js';
import type { Feature } from './feature.js';
import { grantsFeature } from './grants.js';
import { integrationsFeature } from './integrations.js';
import { keysFeature } from './keys.js';
import { mcpFeature } from './mcp.js';
import { outboxFeature } from './outbox.js';
import { referenceFeature } from './reference.js';
import { responsesFeature } from './responses.js';
import { retentionFeature } from './retention.js';
import { systemFeature } from './system.js';
import { templatesFeature } from './templates.js';

/**
 * Every feature, in the order its routes are registered and its workers started. A new feature is a module in this
 * folder and a line here (docs/architecture.md, "Adding a feature").
 */
export const FEATURES: readonly Feature[] = [
  systemFeature,
  referenceFeature,
  consoleFeature,
  responsesFeature,
  integrationsFeature,
  templatesFeature,
  mcpFeature,
  actionsFeature,
  approvalsFeature,
  directoryFeature,
  chainsFeature,
  calendarsFeature,
  destinationsFeature,
  domainsFeature,
  bulkFeature,
  alertsFeature,
  auditFeature,
  keysFeature,
  grantsFeature,
  outboxFeature,
  retentionFeature,
];
