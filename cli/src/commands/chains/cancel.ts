import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureChainsCancelCommand(chains: Command): void {
  chains
    .command('cancel <id>')
    .description('cancel a pending or running chain (steps already run are not rolled back)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const result = await client(cmd).chains.cancel(id);
      printText(cmd, { data: result }, `cancelled chain ${result.id}`);
    });
}
