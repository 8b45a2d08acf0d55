import type { Command } from 'commander';
import { print, wantsJson } from '../../../runtime.js';
import { withAccounts } from '../../../server-package.js';

export function configureAdminKeysRevokeCommand(keys: Command): void {
  keys
    .command('revoke <keyId>')
    .description('revoke any API key: it stops working at once')
    .action(async (keyId: string, _opts: unknown, cmd: Command) => {
      const key = await withAccounts((accounts) => accounts.revokeKey(keyId));
      if (wantsJson(cmd)) print(cmd, { key });
      else process.stdout.write(`revoked ${key.id}\n`);
    });
}
