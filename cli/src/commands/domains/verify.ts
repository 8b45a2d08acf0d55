import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { describeVerification } from './show.js';

export function configureDomainsVerifyCommand(domains: Command): void {
  domains
    .command('verify <domain>')
    .description('start verification: prints the TXT record and the file that prove the domain')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.verify(domain);
      printText(cmd, { data }, describeVerification(data));
    });
}
