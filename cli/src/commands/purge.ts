import type { PurgeCounts } from '@sched/server';
import type { Command } from 'commander';
import { formatTable, printText } from '../runtime.js';
import { serverModule, withDatabase } from '../server-package.js';

/** `sched purge [--dry-run]` (admin): history past the plans' retention, as the daily job deletes it. */
export function configurePurgeCommand(program: Command): void {
  program
    .command('purge')
    .description(
      "delete terminal actions, their attempts, reminder events, outbox rows, ended chains and the audit log's prefix older than the plan retention (admin: talks to the database)",
    )
    .option('--dry-run', 'only count what would be deleted')
    .action(async (opts: { dryRun?: boolean }, cmd: Command) => {
      const { RetentionService } = await serverModule();
      if (opts.dryRun) {
        const byPlan = await withDatabase((d) => new RetentionService(d.database, () => new Date()).dryRun());
        const rows = Object.entries(byPlan).map(([plan, counts]) => ({ plan, ...counts }));
        printText(cmd, { data: byPlan, meta: { dry_run: true } }, `would delete:\n${table(rows)}`);
      } else {
        const total = await withDatabase((d) => new RetentionService(d.database, () => new Date()).purge());
        const { complete: _, ...counts } = total;
        printText(cmd, { data: counts }, `deleted:\n${table([{ plan: 'all', ...counts }])}`);
      }
    });
}

function table(rows: ({ plan: string } & PurgeCounts)[]): string {
  const records: Record<string, unknown>[] = rows.map((r) => ({ ...r }));
  return formatTable(records, [
    'plan',
    'actions',
    'delivery_attempts',
    'reminder_events',
    'outbox_messages',
    'chains',
    'audit_events',
  ]);
}
