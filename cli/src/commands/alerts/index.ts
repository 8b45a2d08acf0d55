import type { Command } from 'commander';
import { configureAlertsCreateCommand } from './create.js';
import { configureAlertsDeleteCommand } from './delete.js';
import { configureAlertsGetCommand } from './get.js';
import { configureAlertsListCommand } from './list.js';
import { configureAlertsTestCommand } from './test.js';
import { configureAlertsUpdateCommand } from './update.js';

const EXAMPLES = `
Examples:
  $ sched alerts create --name "billing failures" --event action.failed --host billing.example.com --threshold 5/10m --email oncall@example.com
  $ sched alerts create --name "receivers" --event destination.circuit_opened --event delivery.late --late-after 30s --webhook https://hooks.example.com/sched-alerts --secret "$DEPLOY_SECRET"
  $ sched alerts list
`;

/** `sched alerts <verb>`: alert rules (docs/alerts.md). */
export function configureAlertsCommand(program: Command): void {
  const alerts = program
    .command('alerts')
    .description(
      'alert rules: failures, expiries, circuits and late deliveries told by email, SMS, chat or webhook',
    )
    .addHelpText('after', EXAMPLES);
  configureAlertsListCommand(alerts);
  configureAlertsCreateCommand(alerts);
  configureAlertsGetCommand(alerts);
  configureAlertsUpdateCommand(alerts);
  configureAlertsDeleteCommand(alerts);
  configureAlertsTestCommand(alerts);
}
