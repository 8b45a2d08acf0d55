import type { Command } from 'commander';
import { print, UsageError, wantsJson } from '../../../runtime.js';
import { serverModule, withAccounts } from '../../../server-package.js';

/** Creates a key in `account` through the database; prints `{ key, api_key }` (the secret once). */
export async function createKeyInAccount(
  opts: { account: string; scopes: string; name?: string | undefined },
  cmd: Command,
): Promise<void> {
  const { parseScopes, SCOPES } = await serverModule();
  const scopes = parseScopes(opts.scopes);
  if (!scopes) throw new UsageError(`--scopes must list ${SCOPES.join(', ')}, comma-separated`);
  const created = await withAccounts((accounts) => accounts.createKey(opts.account, scopes, opts.name));
  const out = { key: created.key, api_key: created.apiKey };
  if (wantsJson(cmd)) print(cmd, out);
  else process.stdout.write(`key ${created.key.id} (${scopes.join(',')})\napi key: ${created.apiKey}\n`);
}

export function configureAdminKeysCreateCommand(keys: Command): void {
  keys
    .command('create')
    .description('create an API key in an account; its secret is printed once')
    .requiredOption('--account <id>', 'account id')
    .option('--scopes <scopes>', 'comma-separated: read, write, admin', 'read,write')
    .option('--name <name>', 'a label for the key')
    .action((opts: { account: string; scopes: string; name?: string }, cmd: Command) =>
      createKeyInAccount(opts, cmd),
    );
}
