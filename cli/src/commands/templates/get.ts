import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { details } from './show.js';

export function configureTemplatesGetCommand(templates: Command): void {
  templates
    .command('get <id>')
    .description('one template (token and URL masked)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.get(id);
      printText(cmd, { data }, details(data));
    });
}
