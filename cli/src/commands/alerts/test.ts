import type { Command } from 'commander';
import { client, print } from '../../runtime.js';

export function configureAlertsTestCommand(alerts: Command): void {
  alerts
    .command('test <id>')
    .description('send a sample alert on each channel of the rule now (see the outcome with `alerts get`)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).alertRules.test(id);
      print(
        cmd,
        { data },
        {
          rows: data.notifications as unknown as Record<string, unknown>[],
          columns: ['id', 'channel', 'type', 'status'],
        },
      );
    });
}
