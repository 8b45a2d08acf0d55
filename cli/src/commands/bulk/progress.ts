import type { BulkDryRun, BulkOperation } from '@sched/sdk';

/** `[########------------]  150/300  affected 150  skipped 0  failed 0`: one line, redrawn in place on a terminal. */
export function progressLine(op: BulkOperation, width = 30): string {
  const total = Math.max(op.matched, 1);
  const done = Math.min(op.processed, op.matched);
  const filled = op.matched === 0 ? width : Math.round((done / total) * width);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
  return `${bar}  ${done}/${op.matched}  affected ${op.affected}  skipped ${op.skipped}  failed ${op.failed}`;
}

/** What a dry run prints: the count, what is skipped and why, a sample, and how to run it. */
export function dryRunText(d: BulkDryRun, rerun: string): string {
  const skipped = Object.entries(d.ineligible)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  return [
    `dry run: ${d.operation} would change ${d.eligible} of ${d.matched} matched action${d.matched === 1 ? '' : 's'}` +
      (skipped ? ` (skipped: ${skipped})` : ''),
    ...(d.sample_ids.length > 0 ? ['sample:', ...d.sample_ids.map((id) => `  ${id}`)] : []),
    `nothing changed; run again with --yes to apply: ${rerun}`,
  ].join('\n');
}

/** The last line of a finished operation. */
export function finishedText(op: BulkOperation): string {
  return `bulk operation ${op.id} ${op.status}: ${op.operation} processed ${op.processed} of ${op.matched} (affected ${op.affected}, skipped ${op.skipped}, failed ${op.failed})`;
}
