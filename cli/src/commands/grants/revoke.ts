import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureGrantsRevokeCommand(grants: Command): void {
  grants
    .command('revoke <id>')
    .description('end a grant now: the next request with its key asks people again')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const grant = await client(cmd).grants.revoke(id);
      printText(cmd, { data: grant }, `revoked ${grant.id} (${grant.key})`);
    });
}
