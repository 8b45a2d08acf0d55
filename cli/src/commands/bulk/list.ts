import type { Command } from 'commander';
import { client, print } from '../../runtime.js';

const COLUMNS = [
  'id',
  'operation',
  'status',
  'matched',
  'processed',
  'affected',
  'skipped',
  'failed',
  'created_at',
];

export function configureBulkListCommand(bulk: Command): void {
  bulk
    .command('list')
    .description('bulk operations, newest first')
    .action(async (_o: unknown, cmd: Command) => {
      const page = await client(cmd).bulkOperations.list();
      print(cmd, page, { rows: page.data as unknown as Record<string, unknown>[], columns: COLUMNS });
    });
}
