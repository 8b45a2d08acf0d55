import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureKeysRevokeCommand(keys: Command): void {
  keys
    .command('revoke <id>')
    .description('revoke an API key: it stops working at once')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await client(cmd).keys.revoke(id);
      printText(cmd, { revoked: id }, `revoked ${id}`);
    });
}
