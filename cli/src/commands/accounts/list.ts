import type { Command } from 'commander';
import { print } from '../../runtime.js';
import { withAccounts } from '../../server-package.js';
import { ACCOUNT_COLUMNS } from './show.js';

export function configureAccountsListCommand(accounts: Command): void {
  accounts
    .command('list')
    .description('every account')
    .action(async (_opts: unknown, cmd: Command) => {
      const list = await withAccounts((accounts) => accounts.listAccounts());
      print(
        cmd,
        { data: list },
        { rows: list as unknown as Record<string, unknown>[], columns: [...ACCOUNT_COLUMNS, 'created_at'] },
      );
    });
}
