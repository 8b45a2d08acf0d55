import type { Plan } from '@sched/server';
import type { Command } from 'commander';
import { parseNumber, print, UsageError, wantsJson } from '../runtime.js';
import { serverModule, withAccounts } from './admin.js';

async function plan(text: string): Promise<Plan> {
  const { PLANS } = await serverModule();
  if (!(PLANS as readonly string[]).includes(text))
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return text as Plan;
}

export function configureAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts (admin: talks to the database)');
  accounts
    .command('create')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', 'free | pro | business', 'free')
    .option('--rate-limit-factor <f>', 'multiplies the default rate limits for this account')
    .action(async (opts: { name: string; plan: string; rateLimitFactor?: string }, cmd: Command) => {
      const p = await plan(opts.plan);
      const factor = opts.rateLimitFactor
        ? parseNumber('--rate-limit-factor', opts.rateLimitFactor)
        : undefined;
      const created = await withAccounts((accounts) =>
        accounts.createAccount({
          name: opts.name,
          plan: p,
          ...(factor ? { rateLimitFactor: factor } : {}),
        }),
      );
      const out = {
        account: { id: created.account.id, name: created.account.name, plan: created.account.plan },
        api_key: created.apiKey,
      };
      if (wantsJson(cmd)) print(cmd, out);
      else process.stdout.write(`account ${out.account.id} (${out.account.plan})\napi key: ${out.api_key}\n`);
    });
  accounts
    .command('update <id>')
    .option('--name <name>')
    .option('--plan <plan>')
    .option('--rate-limit-factor <f>')
    .action(
      async (id: string, opts: { name?: string; plan?: string; rateLimitFactor?: string }, cmd: Command) => {
        const input = {
          ...(opts.name ? { name: opts.name } : {}),
          ...(opts.plan ? { plan: await plan(opts.plan) } : {}),
          ...(opts.rateLimitFactor
            ? { rateLimitFactor: parseNumber('--rate-limit-factor', opts.rateLimitFactor) }
            : {}),
        };
        const account = await withAccounts((accounts) => accounts.updateAccount(id, input));
        print(
          cmd,
          { account },
          {
            rows: [account as unknown as Record<string, unknown>],
            columns: ['id', 'name', 'plan', 'rate_limit_factor'],
          },
        );
      },
    );
  accounts.command('list').action(async (_opts: unknown, cmd: Command) => {
    const list = await withAccounts((accounts) => accounts.listAccounts());
    print(
      cmd,
      { data: list },
      {
        rows: list as unknown as Record<string, unknown>[],
        columns: ['id', 'name', 'plan', 'rate_limit_factor', 'created_at'],
      },
    );
  });
}
