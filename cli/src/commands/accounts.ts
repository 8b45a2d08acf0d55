import type { Plan } from '@sched/server';
import type { Command } from 'commander';
import { parseNumber, print, UsageError } from '../runtime.js';
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
    .option('--json', 'print JSON')
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
      if (cmd.optsWithGlobals().json) print(cmd, out);
      else process.stdout.write(`account ${out.account.id} (${out.account.plan})\napi key: ${out.api_key}\n`);
    });
  accounts
    .command('update <id>')
    .option('--name <name>')
    .option('--plan <plan>')
    .option('--rate-limit-factor <f>')
    .option('--json', 'print JSON')
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
  accounts
    .command('list')
    .option('--json', 'print JSON')
    .action(async (_opts: unknown, cmd: Command) => {
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

  const keys = program.command('keys').description('manage API keys (admin: talks to the database)');
  keys
    .command('create')
    .requiredOption('--account <id>', 'account id')
    .option('--scopes <scopes>', 'comma-separated: read,write', 'read,write')
    .option('--name <name>', 'a label for the key')
    .option('--json', 'print JSON')
    .action(async (opts: { account: string; scopes: string; name?: string }, cmd: Command) => {
      const { parseScopes } = await serverModule();
      const scopes = parseScopes(opts.scopes);
      if (!scopes) throw new UsageError('--scopes must list read and/or write, comma-separated');
      const created = await withAccounts((accounts) => accounts.createKey(opts.account, scopes, opts.name));
      const out = { key: created.key, api_key: created.apiKey };
      if (cmd.optsWithGlobals().json) print(cmd, out);
      else process.stdout.write(`key ${created.key.id} (${scopes.join(',')})\napi key: ${created.apiKey}\n`);
    });
  keys
    .command('list')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (opts: { account: string }, cmd: Command) => {
      const list = await withAccounts((accounts) => accounts.listKeys(opts.account));
      print(
        cmd,
        { data: list },
        {
          rows: list.map((k) => ({ ...k, scopes: k.scopes.join(',') })),
          columns: ['id', 'prefix', 'name', 'scopes', 'last_used_at', 'revoked_at', 'created_at'],
        },
      );
    });
  keys
    .command('revoke <keyId>')
    .option('--json', 'print JSON')
    .action(async (keyId: string, _opts: unknown, cmd: Command) => {
      const key = await withAccounts((accounts) => accounts.revokeKey(keyId));
      if (cmd.optsWithGlobals().json) print(cmd, { key });
      else process.stdout.write(`revoked ${key.id}\n`);
    });
}
