import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureTemplatesLimitsCommand(templates: Command): void {
  templates
    .command('limits')
    .description('templates used against the plan')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).templates.limits();
      printText(
        cmd,
        data,
        `${data.current} of ${data.max} templates (${data.remaining} left, ${data.plan} plan)`,
      );
    });
}
