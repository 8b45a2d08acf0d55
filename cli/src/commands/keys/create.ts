import { ApiKeyCreate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText, UsageError } from '../../runtime.js';
import { createKeyInAccount } from '../admin/keys/create.js';

export function configureKeysCreateCommand(keys: Command): void {
  keys
    .command('create')
    .description('create an API key; its secret is printed once')
    .option('--name <name>', 'a label for the key')
    .option('--scopes <scopes>', 'comma-separated: read, write, admin', 'read,write')
    .option('--expires-at <time>', 'ISO 8601 time when the key stops working (default: never)')
    .option(
      '--account <id>',
      'admin: create the key in any account, through the database (as `sched admin keys create`)',
    )
    .addHelpText('after', '\nExample:\n  $ sched keys create --name ci --scopes read,write')
    .action(
      async (opts: { name?: string; scopes: string; expiresAt?: string; account?: string }, cmd: Command) => {
        if (opts.account) return createKeyInAccount({ ...opts, account: opts.account }, cmd);
        if (!opts.name) throw new UsageError('--name is required (a label to tell the key apart)');
        const body = parseOptions(ApiKeyCreate, {
          name: opts.name,
          scopes: opts.scopes.split(',').map((s) => s.trim()),
          ...(opts.expiresAt ? { expires_at: opts.expiresAt } : {}),
        });
        const created = await client(cmd).keys.create(body);
        printText(
          cmd,
          { data: created },
          `key ${created.id} (${created.scopes.join(',')})\napi key: ${created.key}\nstore it now: it is not shown again`,
        );
      },
    );
}
