import { readFileSync } from 'node:fs';
import type { ActionCreateBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, printText, UsageError } from '../../runtime.js';

/** The most items one `POST /v1/actions/batch` takes (contract ACTION_BATCH_MAX); a longer file is refused here. */
const BATCH_MAX = 1000;

/** Reads NDJSON: one JSON create body per non-blank line (`-` is stdin). A bad line is a usage error naming it. */
function readCreateBodies(text: string): ActionCreateBody[] {
  const bodies: ActionCreateBody[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      throw new UsageError(`line ${i + 1}: not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new UsageError(`line ${i + 1}: a create body is a JSON object`);
    bodies.push(body as ActionCreateBody);
  }
  if (bodies.length === 0) throw new UsageError('the file holds no create body');
  if (bodies.length > BATCH_MAX)
    throw new UsageError(`at most ${BATCH_MAX} actions a batch; the file holds ${bodies.length}`);
  return bodies;
}

/**
 * `sched actions create --from-file actions.ndjson`: every line one create body, all created in one batch
 * (`POST /v1/actions/batch`): all or nothing. An invalid item is a 422 naming `actions.N.field` (N counts bodies from 0).
 */
export async function createFromFile(cmd: Command, path: string): Promise<void> {
  const bodies = readCreateBodies(readFileSync(path === '-' ? 0 : path, 'utf8'));
  const result = await client(cmd).actions.createMany(bodies);
  const lines = result.data.map((a, i) =>
    a.meta?.skipped
      ? `${i}: not created (${a.meta.reason}): live action ${a.id} (${a.name}) is ${a.status}`
      : `${i}: ${a.id} (${a.name}) ${a.status}, due ${a.scheduled_for}`,
  );
  printText(
    cmd,
    result,
    `${lines.join('\n')}\ncreated ${result.meta.created}, skipped ${result.meta.skipped}`,
  );
}
