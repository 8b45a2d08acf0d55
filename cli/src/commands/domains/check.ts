import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeCheck } from './show.js';

export function configureDomainsCheckCommand(domains: Command): void {
  domains
    .command('check <domain>')
    .description('try both methods now')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.check(domain);
      printText(cmd, { data }, describeCheck(data));
    });
}
