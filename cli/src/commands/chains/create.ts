import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

import { readChainFile, describeChain } from './show.js';

export function configureChainsCreateCommand(chains: Command): void {
  chains
    .command('create')
    .description('start a chain from a JSON definition (the POST /v1/chains body)')
    .requiredOption('--file <file>', 'the chain as JSON (- for stdin)')
    .addHelpText(
      'after',
      '\nExample:\n  $ sched chains create --file chain.json\n  $ cat chain.json | sched chains create --file -',
    )
    .action(async (opts: { file: string }, cmd: Command) => {
      const body = readChainFile(opts.file, (p) => readFileSync(p === '-' ? 0 : p, 'utf8'));
      const chain = await client(cmd).chains.create(body);
      printText(cmd, { data: chain }, describeChain(chain));
    });
}
