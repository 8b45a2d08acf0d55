import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { COLUMNS } from './show.js';

export function configureDomainsListCommand(domains: Command): void {
  domains
    .command('list')
    .description('destination domains with their counts and verification')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.list();
      print(cmd, { data }, { rows: data, columns: COLUMNS });
    });
}
