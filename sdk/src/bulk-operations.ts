import type { BulkDryRun, BulkOperation, BulkOperationCreate } from '@sched/contract';
import type { z } from 'zod';
import type { RawClient } from './raw.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';

/** What `bulkOperations.create` takes: `operation`, one of `filter` / `ids`, `dry_run` (default true), `note`. */
export type BulkOperationInput = z.input<typeof BulkOperationCreate>;
export type { BulkDryRun, BulkOperation };

/** Options of `bulkOperations.waitForCompletion`. */
export interface BulkWaitOptions {
  /** Between two reads of the operation; default 1,000 ms. */
  intervalMs?: number;
  /** Give up (throw) after this long; default 10 minutes. */
  timeoutMs?: number;
  /** Called after each read, for a progress display. */
  onProgress?: (op: BulkOperation) => void;
}

/**
 * Bulk operations (`/v1/bulk-operations`): cancel, retry, replay, pause or resume every action a filter (the filters
 * of `actions.list`) or a list of ids matches. `create` is a dry run unless `dry_run: false` is given:
 * `const preview = await sched.bulkOperations.create({ operation: 'retry', filter: { status: 'failed' } })`, then
 * `const op = await sched.bulkOperations.create({ ...same, dry_run: false })` and
 * `await sched.bulkOperations.waitForCompletion(op.id)`.
 */
export function bulkOperationsApi(raw: RawClient) {
  const get = async (id: string): Promise<BulkOperation> =>
    unwrap(await raw.bulkOperations.get({ params: { id } }), 200).data;
  return {
    /** A dry run (200, the default) answers the counts; `dry_run: false` starts the operation (202). */
    async create(body: BulkOperationInput): Promise<BulkDryRun | BulkOperation> {
      const result = await raw.bulkOperations.create({ body });
      if (result.status === 200) return result.body.data;
      return unwrap(result, 202).data;
    },
    /** The counts a run would have, changing nothing. */
    async dryRun(body: Omit<BulkOperationInput, 'dry_run'>): Promise<BulkDryRun> {
      return unwrap(await raw.bulkOperations.create({ body: { ...body, dry_run: true } }), 200).data;
    },
    /** Starts the operation; it runs in the worker (watch it with `get` or `waitForCompletion`). */
    async start(body: Omit<BulkOperationInput, 'dry_run'>): Promise<BulkOperation> {
      return unwrap(await raw.bulkOperations.create({ body: { ...body, dry_run: false } }), 202).data;
    },
    get,
    /** Newest first. */
    list: async (query: { status?: BulkOperation['status']; page?: number; per_page?: number } = {}) =>
      unwrap(await raw.bulkOperations.list({ query }), 200) as Page<BulkOperation>,
    /** Stops a running operation (409 when it has already ended). */
    stop: async (id: string): Promise<BulkOperation> =>
      unwrap(await raw.bulkOperations.stop({ params: { id } }), 200).data,
    /** Reads the operation until it is `completed` or `stopped`, and answers it then. */
    async waitForCompletion(id: string, options: BulkWaitOptions = {}): Promise<BulkOperation> {
      const deadline = Date.now() + (options.timeoutMs ?? 600_000);
      for (;;) {
        const op = await get(id);
        options.onProgress?.(op);
        if (op.status !== 'running') return op;
        if (Date.now() > deadline) throw new Error(`bulk operation ${id} still running after the timeout`);
        await new Promise((r) => setTimeout(r, options.intervalMs ?? 1_000));
      }
    },
  };
}
