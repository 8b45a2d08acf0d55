import type { Command } from 'commander';
import { print, UsageError } from '../../runtime.js';
import { serverInstalled } from '../../server-package.js';
import { OUTBOX_COLUMNS, parseOutboxFilter, readOutbox, readOutboxOverApi } from './entry.js';

export function configureOutboxListCommand(outbox: Command): void {
  outbox
    .command('list')
    .description('newest first, every account')
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .option('--account <id>', 'only this account')
    .option('--action <id>', 'only this action')
    .option(
      '--api',
      "over the API (GET /v1/outbox, a development server, the key's account); the default without the server package",
    )
    .action(
      async (opts: { limit: string; account?: string; action?: string; api?: boolean }, cmd: Command) => {
        const filter = parseOutboxFilter(opts);
        if (opts.api && opts.account)
          throw new UsageError('--account is for the database; over the API the key names the account');
        const data =
          opts.api || !serverInstalled() ? await readOutboxOverApi(cmd, filter) : await readOutbox(filter);
        print(cmd, { data }, { rows: data as unknown as Record<string, unknown>[], columns: OUTBOX_COLUMNS });
      },
    );
}
