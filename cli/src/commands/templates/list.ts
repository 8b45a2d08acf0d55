import { TEMPLATE_TYPES } from '@sched/contract';
import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { oneOf } from '../actions-request.js';
import { table } from './show.js';

export function configureTemplatesListCommand(templates: Command): void {
  templates
    .command('list')
    .description('list templates, newest first')
    .option('--type <type>', 'action or chain')
    .option('--page <n>')
    .option('--per-page <n>')
    .action(async (opts: { type?: string; page?: string; perPage?: string }, cmd: Command) => {
      const page = await client(cmd).templates.list({
        ...(opts.type ? { type: oneOf('--type', opts.type, TEMPLATE_TYPES) } : {}),
        ...(opts.page ? { page: Number(opts.page) } : {}),
        ...(opts.perPage ? { per_page: Number(opts.perPage) } : {}),
      });
      print(cmd, page, table(page.data));
    });
}
