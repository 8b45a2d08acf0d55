import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureActionsRetryCommand(actions: Command): void {
  actions
    .command('retry <id>')
    .description('start a new delivery cycle of a failed action now')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const retried = await client(cmd).actions.retry(id);
      printText(
        cmd,
        { data: retried },
        `retrying ${retried.id} (${retried.name}): ${retried.status}, manual retry #${retried.manual_retry_count}`,
      );
    });
}
