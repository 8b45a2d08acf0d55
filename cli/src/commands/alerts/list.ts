import type { Command } from 'commander';
import { client, parseNumber, print } from '../../runtime.js';
import { ruleTable } from './show.js';

export function configureAlertsListCommand(alerts: Command): void {
  alerts
    .command('list')
    .description('the account’s alert rules, newest first')
    .option('--page <n>', 'page number', (v) => parseNumber('--page', v))
    .option('--per-page <n>', 'rules per page (at most 100)', (v) => parseNumber('--per-page', v))
    .action(async (opts: { page?: number; perPage?: number }, cmd: Command) => {
      const page = await client(cmd).alertRules.list({
        ...(opts.page !== undefined ? { page: opts.page } : {}),
        ...(opts.perPage !== undefined ? { per_page: opts.perPage } : {}),
      });
      print(cmd, page, ruleTable(page.data));
    });
}
