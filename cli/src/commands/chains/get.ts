import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

import { describeChain } from './show.js';

export function configureChainsGetCommand(chains: Command): void {
  chains
    .command('get <id>')
    .description('show a chain: each step with its status and timing')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const chain = await client(cmd).chains.get(id);
      printText(cmd, { data: chain }, describeChain(chain));
    });
}
