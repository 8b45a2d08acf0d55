import { Uuid } from '@sched/contract';
import type { Command } from 'commander';
import { formatFields, parseOptions, printText } from '../../runtime.js';
import { serverModule, withDatabase } from '../../server-package.js';
import { toOutboxEntry } from './entry.js';

export function configureOutboxShowCommand(outbox: Command): void {
  outbox
    .command('show <id>')
    .description('one message as it would have been sent')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const messageId = parseOptions(Uuid, id);
      const { findOutboxMessage } = await serverModule();
      const row = await withDatabase((d) => findOutboxMessage(d.database.sql, messageId));
      if (!row) throw new Error(`no outbox message ${messageId}`);
      const entry = toOutboxEntry(row);
      const { rendered, ...fields } = entry;
      printText(cmd, { data: entry }, `${formatFields(Object.entries(fields))}\n\n${rendered.trimEnd()}`);
    });
}
