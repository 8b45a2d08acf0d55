import type { Command } from 'commander';
import { print } from '../../runtime.js';
import { withAccounts } from '../../server-package.js';
import { ACCOUNT_COLUMNS, parsePlan, parseRateLimitFactor } from './show.js';

export function configureAccountsUpdateCommand(accounts: Command): void {
  accounts
    .command('update <id>')
    .description("change an account's name, plan or rate-limit factor")
    .option('--name <name>')
    .option('--plan <plan>', 'free | pro | business')
    .option('--rate-limit-factor <f>', 'multiplies the default rate limits for this account')
    .action(
      async (id: string, opts: { name?: string; plan?: string; rateLimitFactor?: string }, cmd: Command) => {
        const factor = parseRateLimitFactor(opts.rateLimitFactor);
        const input = {
          ...(opts.name ? { name: opts.name } : {}),
          ...(opts.plan ? { plan: await parsePlan(opts.plan) } : {}),
          ...(factor ? { rateLimitFactor: factor } : {}),
        };
        const account = await withAccounts((accounts) => accounts.updateAccount(id, input));
        print(
          cmd,
          { account },
          { rows: [account as unknown as Record<string, unknown>], columns: ACCOUNT_COLUMNS },
        );
      },
    );
}
