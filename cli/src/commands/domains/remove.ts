import type { Command } from 'commander';
import { client, print, wantsJson } from '../../runtime.js';

export function configureDomainsRemoveCommand(domains: Command): void {
  domains
    .command('remove <domain>')
    .description('remove the verification: the thresholds apply again')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      await client(cmd).domains.remove(domain);
      if (wantsJson(cmd)) print(cmd, { removed: domain });
      else process.stdout.write(`removed ${domain}\n`);
    });
}
