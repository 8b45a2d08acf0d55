import type { TemplateCreateBody } from '@sched/sdk';
import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';
import { details, readFile, readTemplateFile } from './show.js';

export function configureTemplatesCreateCommand(templates: Command): void {
  templates
    .command('create')
    .description('create a template from a JSON body (the trigger URL is shown in full only now)')
    .requiredOption('--file <file>', 'the template as JSON (- for stdin)')
    .action(async (opts: { file: string }, cmd: Command) => {
      const data = await client(cmd).templates.create(
        // The server checks every field and answers 422 naming it.
        readTemplateFile(opts.file, readFile) as TemplateCreateBody,
      );
      printText(cmd, { data }, `${details(data)}\n\nKeep the trigger URL: it is not shown in full again.`);
    });
}
