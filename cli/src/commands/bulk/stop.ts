import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { finishedText } from './progress.js';

export function configureBulkStopCommand(bulk: Command): void {
  bulk
    .command('stop <id>')
    .description('stop a running bulk operation (the batch in progress finishes)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const op = await client(cmd).bulkOperations.stop(id);
      printText(cmd, { data: op }, finishedText(op));
    });
}
