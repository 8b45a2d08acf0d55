import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { listKeysOfAccount } from '../admin/keys/list.js';
import { KEY_COLUMNS, keyRow } from './show.js';

export function configureKeysListCommand(keys: Command): void {
  keys
    .command('list')
    .description('list the live API keys (prefix, scopes, last use, expiry; never the secrets)')
    .option('--account <id>', "admin: list any account's keys, revoked ones too, through the database")
    .action(async (opts: { account?: string }, cmd: Command) => {
      if (opts.account) return listKeysOfAccount(opts.account, cmd);
      const list = await client(cmd).keys.list();
      print(cmd, { data: list }, { rows: list.map(keyRow), columns: KEY_COLUMNS });
    });
}
