import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureTemplatesDeleteCommand(templates: Command): void {
  templates
    .command('delete <id>')
    .description('delete a template')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).templates.delete(id);
      printText(cmd, { deleted: id }, `deleted ${id}; its trigger URL no longer works`);
    });
}
