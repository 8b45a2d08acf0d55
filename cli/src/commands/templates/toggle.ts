import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureTemplatesToggleCommand(templates: Command): void {
  templates
    .command('toggle <id>')
    .description('enable or disable a template (a disabled one answers 404 on its URL)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.toggleActive(id);
      printText(cmd, { data }, `${id} is now ${data.is_active ? 'active' : 'inactive'}`);
    });
}
