import type { Command } from 'commander';
import { print, wantsJson } from '../../runtime.js';
import { withAccounts } from '../../server-package.js';
import { parsePlan, parseRateLimitFactor } from './show.js';

export function configureAccountsCreateCommand(accounts: Command): void {
  accounts
    .command('create')
    .description('create an account and its first API key (printed once)')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', 'free | pro | business', 'free')
    .option('--rate-limit-factor <f>', 'multiplies the default rate limits for this account')
    .action(async (opts: { name: string; plan: string; rateLimitFactor?: string }, cmd: Command) => {
      const plan = await parsePlan(opts.plan);
      const factor = parseRateLimitFactor(opts.rateLimitFactor);
      const created = await withAccounts((accounts) =>
        accounts.createAccount({ name: opts.name, plan, ...(factor ? { rateLimitFactor: factor } : {}) }),
      );
      const out = {
        account: { id: created.account.id, name: created.account.name, plan: created.account.plan },
        api_key: created.apiKey,
      };
      if (wantsJson(cmd)) print(cmd, out);
      else process.stdout.write(`account ${out.account.id} (${out.account.plan})\napi key: ${out.api_key}\n`);
    });
}
