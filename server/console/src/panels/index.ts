import type { FunctionComponent } from 'preact';
import type { Route } from '../router.js';
import { ActionsPanel } from './actions.js';
import { AlertRulesPanel } from './alert-rules.js';
import { ApprovalsPanel } from './approvals.js';
import { AuditPanel } from './audit.js';
import { BulkOperationsPanel } from './bulk-operations.js';
import { ChainsPanel } from './chains.js';
import { DestinationsPanel } from './destinations.js';
import { FailedInboxPanel } from './failed-inbox.js';
import { OverviewPanel } from './overview.js';
import { SchedulePreviewPanel } from './schedule-preview.js';
import { SettingsPanel } from './settings.js';
import { TemplatesPanel } from './templates.js';

export interface Panel {
  /** First segment of the path under /console; '' is the overview. */
  path: string;
  label: string;
  component: FunctionComponent<{ route: Route }>;
  /** Shown only to sessions whose key may call what the panel needs (the server would answer 403 otherwise). */
  needsWrite?: boolean;
}

/** The console's panels, in the order of the navigation. A panel is one entry here and one file in this folder. */
export const PANELS: readonly Panel[] = [
  { path: '', label: 'Overview', component: OverviewPanel },
  { path: 'actions', label: 'Actions', component: ActionsPanel },
  { path: 'failed', label: 'Failed inbox', component: FailedInboxPanel },
  { path: 'approvals', label: 'Approvals', component: ApprovalsPanel },
  { path: 'chains', label: 'Chains', component: ChainsPanel },
  { path: 'templates', label: 'Templates', component: TemplatesPanel },
  { path: 'destinations', label: 'Destinations', component: DestinationsPanel },
  { path: 'bulk', label: 'Bulk operations', component: BulkOperationsPanel },
  { path: 'alerts', label: 'Alert rules', component: AlertRulesPanel },
  { path: 'audit', label: 'Audit log', component: AuditPanel },
  // A POST, so the server asks for the write scope although nothing is created.
  { path: 'schedule-preview', label: 'Schedule preview', component: SchedulePreviewPanel, needsWrite: true },
  { path: 'settings', label: 'Settings', component: SettingsPanel },
];
