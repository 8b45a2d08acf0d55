import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeAction } from './show.js';

export function configureActionsGetCommand(actions: Command): void {
  actions
    .command('get <id>')
    .description("show an action: its delivery attempts, or an approval's recipients and timeline")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const action = await client(cmd).actions.get(id);
      printText(cmd, { data: action }, describeAction(action, new Date()));
    });
}
