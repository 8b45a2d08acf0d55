import type { Command } from 'commander';
import { client, formatFields, printText } from '../../runtime.js';
import { progressLine } from './progress.js';

export function configureBulkGetCommand(bulk: Command): void {
  bulk
    .command('get <id>')
    .description('a bulk operation and its progress')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const op = await client(cmd).bulkOperations.get(id);
      printText(
        cmd,
        { data: op },
        `${formatFields([
          ['id', op.id],
          ['operation', op.operation],
          ['status', op.status],
          ['note', op.note],
          ['filter', op.filter],
          ['created_at', op.created_at],
          ['finished_at', op.finished_at],
        ])}\n${progressLine(op)}`,
      );
    });
}
