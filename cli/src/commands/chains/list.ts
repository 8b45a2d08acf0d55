import type { ChainListQuery, ChainSummary } from '@sched/sdk';
import { type Command, Option } from 'commander';
import { client, parseNumber, print, printPageLine } from '../../runtime.js';

import { CHAIN_STATUSES, LIST_COLUMNS } from './show.js';

export function configureChainsListCommand(chains: Command): void {
  chains
    .command('list')
    .description('list chains, newest first')
    .addOption(new Option('--status <status>').choices(CHAIN_STATUSES))
    .option('--page <n>', 'page number (default 1)')
    .option('--per-page <n>', 'chains per page, 1-100 (default 20)')
    .option('--all', 'fetch every page')
    .action(
      async (
        opts: { status?: ChainSummary['status']; page?: string; perPage?: string; all?: boolean },
        cmd: Command,
      ) => {
        const query: ChainListQuery = {
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.page ? { page: parseNumber('--page', opts.page) } : {}),
          ...(opts.perPage ? { per_page: parseNumber('--per-page', opts.perPage) } : {}),
        };
        const sched = client(cmd);
        if (opts.all) {
          const data = await sched.chains.listAll(query);
          print(cmd, { data }, { rows: data, columns: LIST_COLUMNS });
          return;
        }
        const page = await sched.chains.list(query);
        print(cmd, page, { rows: page.data, columns: LIST_COLUMNS });
        printPageLine(cmd, page.meta, 'chains');
      },
    );
}
