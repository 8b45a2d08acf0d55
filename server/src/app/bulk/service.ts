import { randomUUID } from 'node:crypto';
import {
  type BulkDryRun,
  type BulkOperation,
  type BulkOperationCreate,
  type BulkOperationState,
  MAX_RUNNING_BULK_OPERATIONS,
} from '@sched/contract';
import { parseDuration } from '../../domain/schedule/duration.js';
import { bulkEligibility, tallyEligibility } from '../../domain/action/bulk.js';
import {
  type BulkOperationRow,
  type BulkTarget,
  countByStatus,
  findBulkOperation,
  listBulkOperations,
  lockAndCountRunning,
  sampleIds,
  startBulkOperation,
  stopBulkOperation,
} from '../../persistence/bulk-operations.js';
import type { Principal } from '../accounts.js';
import { toActionFilter } from '../actions/filter.js';
import { pauseEnd } from '../../domain/action/pause.js';
import { recordAudit } from '../audit.js';
import { auditReplayOptions } from '../../domain/audit/details.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../errors.js';
import type { RateLimiter } from '../rate-limiter.js';
import { rule } from '../../domain/rate-limit/policy.js';
import { type Page, type PageQuery, pageOf, pageWindow } from '../pagination.js';
import type { BulkOperationQueue, Clock, Store } from '../ports.js';

const SAMPLE_SIZE = 10;

export function bulkOperationView(r: BulkOperationRow): BulkOperation {
  return {
    id: r.id,
    operation: r.operation,
    status: r.status,
    note: r.note,
    filter: r.filter,
    matched: r.matched,
    processed: r.processed,
    affected: r.affected,
    skipped: r.skipped,
    failed: r.failed,
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

export type BulkCreateResult =
  | { kind: 'dry_run'; data: BulkDryRun }
  | { kind: 'started'; data: BulkOperation };

/**
 * Bulk operations as the API sees them: a dry run counts, a real run snapshots the matched ids and hands
 * the work to a worker (app/bulk/runner.ts). Every query is scoped to the caller's account.
 */
export class BulkOperations {
  constructor(
    private readonly store: Store,
    private readonly queue: BulkOperationQueue,
    private readonly clock: Clock,
    /** Counts a replay or retry start against `createAction`, as a batch create counts; nothing when absent. */
    private readonly limits?: { limiter: RateLimiter; globalFactor: number },
  ) {}

  async create(principal: Principal, body: BulkOperationCreate): Promise<BulkCreateResult> {
    const accountId = principal.accountId;
    const options = this.options(body);
    const target = this.target(body);
    if (body.dry_run) {
      const now = this.clock();
      const counts = tallyEligibility(
        body.operation,
        await countByStatus(this.store.sql, accountId, target, now),
      );
      return {
        kind: 'dry_run',
        data: {
          dry_run: true,
          operation: body.operation,
          ...counts,
          sample_ids: await sampleIds(
            this.store.sql,
            accountId,
            target,
            bulkEligibility(body.operation),
            SAMPLE_SIZE,
            now,
          ),
        },
      };
    }
    if (this.limits && (body.operation === 'replay' || body.operation === 'retry')) {
      // Replays make actions and retries send them again: the start counts as a create request does.
      const { limiter, globalFactor } = this.limits;
      const state = await limiter.check([
        rule('createAction', accountId, globalFactor * principal.rateLimitFactor),
      ]);
      if (!state.allowed) throw new RateLimitedError(state.retryAfterSeconds);
    }
    const row = await this.store.transaction(async (db) => {
      if ((await lockAndCountRunning(db, accountId)) >= MAX_RUNNING_BULK_OPERATIONS)
        throw new ConflictError(
          `${MAX_RUNNING_BULK_OPERATIONS} bulk operations of this account are running: wait for one to finish or stop one`,
        );
      const started = await startBulkOperation(
        db,
        {
          id: randomUUID(),
          accountId,
          operation: body.operation,
          filter: body.filter ?? null,
          options,
          note: body.note ?? null,
          now: this.clock(),
        },
        target,
      );
      // A dry run is no reservation: a snapshot grown past what it counted is refused, the whole start rolled back.
      if (body.expected_matched !== undefined && started.matched > body.expected_matched)
        throw new ConflictError(
          `the filter now matches ${started.matched} actions, more than expected_matched (${body.expected_matched}): run the dry run again`,
        );
      await this.queue.enqueue(db, started.id);
      await recordAudit(db, accountId, {
        action: 'bulk_operation.create',
        resource: { type: 'bulk_operation', id: started.id },
        details: {
          operation: body.operation,
          filter: body.filter ?? null,
          // The replay's header values and body may be credentials: the log keeps header names and a flag.
          options: options?.replay ? { replay: auditReplayOptions(body.replay!) } : options,
          note: body.note ?? null,
          matched: started.matched,
        },
      });
      return started;
    });
    return { kind: 'started', data: bulkOperationView(row) };
  }

  async get(accountId: string, id: string): Promise<BulkOperation> {
    const row = await findBulkOperation(this.store.sql, accountId, id);
    if (!row) throw new NotFoundError('bulk operation');
    return bulkOperationView(row);
  }

  async list(
    accountId: string,
    q: PageQuery & { status?: BulkOperationState | undefined },
  ): Promise<Page<BulkOperation>> {
    const { rows, ...counted } = await listBulkOperations(
      this.store.sql,
      accountId,
      q.status ? { status: q.status } : {},
      pageWindow(q),
    );
    return pageOf(rows.map(bulkOperationView), counted, q);
  }

  /** Stops a running operation: the batch in progress commits first (it holds the row), nothing after it runs. */
  async stop(accountId: string, id: string): Promise<BulkOperation> {
    const stopped = await this.store.transaction(async (db) => {
      const row = await stopBulkOperation(db, accountId, id, this.clock());
      if (row)
        await recordAudit(db, accountId, {
          action: 'bulk_operation.stop',
          resource: { type: 'bulk_operation', id },
          details: { operation: row.operation, processed: row.processed },
        });
      return row;
    });
    if (stopped) return bulkOperationView(stopped);
    const row = await findBulkOperation(this.store.sql, accountId, id);
    if (!row) throw new NotFoundError('bulk operation');
    throw new ConflictError(`bulk operation ${id} is ${row.status}, not running`);
  }

  /**
   * What each action's change takes, checked now so a bad input is a 422 before anything starts. A pause's
   * `duration` becomes one `until` for the whole operation: every action resumes at the same moment.
   */
  private options(body: BulkOperationCreate): Record<string, unknown> | null {
    if (body.replay) return { replay: body.replay };
    if (body.resume) return { resume: body.resume };
    if (body.run) return { run: body.run };
    if (body.reschedule) {
      const negative = body.reschedule.offset.startsWith('-');
      const ms = parseDuration(body.reschedule.offset.replace(/^-/, ''));
      if (ms === null) throw ValidationError.field('reschedule.offset', 'is not a valid duration');
      return { reschedule: { offset_ms: negative ? -ms : ms } };
    }
    if (body.pause) {
      const end = pauseEnd(body.pause, this.clock(), 'UTC');
      if (!end.ok)
        throw new ValidationError(
          Object.fromEntries(Object.entries(end.errors).map(([k, v]) => [`pause.${k}`, v])),
        );
      return { pause: body.pause.duration && end.until ? { until: end.until.toISOString() } : body.pause };
    }
    return null;
  }

  private target(body: BulkOperationCreate): BulkTarget {
    if (body.ids) return { ids: [...new Set(body.ids)] };
    const filter = toActionFilter(body.filter ?? {});
    // A filter that can match nothing (a status naming no state) matches nothing, as in GET /actions.
    return filter === null ? { ids: [] } : { filter };
  }
}
