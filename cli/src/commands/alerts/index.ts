import type { Command } from 'commander';
import { configureAlertsCreateCommand } from './create.js';
import { configureAlertsDeleteCommand } from './delete.js';
import { configureAlertsGetCommand } from './get.js';
import { configureAlertsListCommand } from './list.js';
import { configureAlertsTestCommand } from './test.js';
import { configureAlertsUpdateCommand } from './update.js';

/** `sched alerts <verb>`: alert rules (docs/alerts.md). */
export function configureAlertsCommand(program: Command): void {
  const alerts = program
    .command('alerts')
    .description(
      'alert rules: failures, expiries, circuits and late deliveries told by email, SMS, chat or webhook',
    );
  configureAlertsListCommand(alerts);
  configureAlertsCreateCommand(alerts);
  configureAlertsGetCommand(alerts);
  configureAlertsUpdateCommand(alerts);
  configureAlertsDeleteCommand(alerts);
  configureAlertsTestCommand(alerts);
}
