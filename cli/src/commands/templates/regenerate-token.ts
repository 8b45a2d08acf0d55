import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureTemplatesRegenerateTokenCommand(templates: Command): void {
  templates
    .command('regenerate-token <id>')
    .description('a new trigger URL; the old one stops working at once')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.regenerateToken(id);
      printText(cmd, { data }, data.trigger_url);
    });
}
