import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeDomain } from './show.js';

export function configureDomainsGetCommand(domains: Command): void {
  domains
    .command('get <domain>')
    .description('status, usage and instructions')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.get(domain);
      printText(cmd, { data }, describeDomain(data));
    });
}
