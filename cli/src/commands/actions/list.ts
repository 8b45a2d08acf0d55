import type { ActionSummary } from '@sched/sdk';
import { type Command, Option } from 'commander';
import { client, print, printPageLine } from '../../runtime.js';
import { buildListQuery, type ListActionsOptions, MODE_FILTERS, STATUS_FILTERS } from './request.js';
import { type BulkFilterOptions, inboxQuery, withInboxFlags } from '../bulk/filter.js';

const LIST_COLUMNS = ['id', 'name', 'status', 'scheduled_for'];

export function configureActionsListCommand(actions: Command): void {
  const list = actions
    .command('list')
    .description('list actions, newest first')
    .addOption(new Option('--status <status>').choices(STATUS_FILTERS))
    .addOption(new Option('--mode <mode>').choices(MODE_FILTERS))
    .option('--search <text>', 'in name and description')
    .option('--dedup-key <key>')
    .option('--recurring', 'only recurring actions')
    .option('--one-time', 'only one-time actions');
  // The failed-delivery inbox: --destination-host, --last-status-code, --error-class, --failed-after ...
  withInboxFlags(list)
    .option('--page <n>', 'page number (default 1)')
    .option('--per-page <n>', 'actions per page, 1-100 (default 25)')
    .option('--all', 'fetch every page')
    .action(async (opts: ListActionsOptions & BulkFilterOptions & { all?: boolean }, cmd: Command) => {
      const query = { ...buildListQuery(opts), ...inboxQuery(opts) };
      const sched = client(cmd);
      if (opts.all) {
        const data = await sched.actions.listAll(query);
        print(cmd, { data }, listTable(data));
        return;
      }
      const page = await sched.actions.list(query);
      print(cmd, page, listTable(page.data));
      printPageLine(cmd, page.meta, 'actions');
    });
}

function listTable(rows: ActionSummary[]) {
  return { rows: rows as unknown as Record<string, unknown>[], columns: LIST_COLUMNS };
}
