import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureAlertsDeleteCommand(alerts: Command): void {
  alerts
    .command('delete <id>')
    .description('delete a rule (its unsent messages go with it)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).alertRules.delete(id);
      printText(cmd, { deleted: id }, `deleted ${id}`);
    });
}
