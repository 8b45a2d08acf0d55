import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeRule } from './show.js';

export function configureAlertsGetCommand(alerts: Command): void {
  alerts
    .command('get <id>')
    .description('one rule: settings, state and its last messages')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).alertRules.get(id);
      printText(cmd, { data }, describeRule(data));
    });
}
