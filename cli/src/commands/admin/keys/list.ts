import type { Command } from 'commander';
import { print } from '../../../runtime.js';
import { withAccounts } from '../../../server-package.js';

/** Every key of `account`, revoked and expired ones too, through the database. */
export async function listKeysOfAccount(account: string, cmd: Command): Promise<void> {
  const list = await withAccounts((accounts) => accounts.listKeys(account));
  print(
    cmd,
    { data: list },
    {
      rows: list.map((k) => ({ ...k, scopes: k.scopes.join(',') })),
      columns: ['id', 'prefix', 'name', 'scopes', 'last_used_at', 'expires_at', 'revoked_at', 'created_at'],
    },
  );
}

export function configureAdminKeysListCommand(keys: Command): void {
  keys
    .command('list')
    .description("an account's keys, revoked and expired ones too")
    .requiredOption('--account <id>', 'account id')
    .action((opts: { account: string }, cmd: Command) => listKeysOfAccount(opts.account, cmd));
}
