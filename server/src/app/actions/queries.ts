import { ACTION_VIEW_ATTEMPTS, type Action, type ActionStats, type ActionSummary } from '@sched/contract';
import {
  attemptPage,
  coordinationKeys,
  findAction,
  listActions,
  replaysOf,
} from '../../persistence/actions.js';
import { attachmentsOf } from '../../persistence/approvals/attachments.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import { bulkEventsOf } from '../../persistence/bulk-operations.js';
import type { Sql } from '../../persistence/database.js';
import {
  countActionsByStatus,
  countApprovalsWaiting,
  deliveryFigures,
  failingUrls,
} from '../../persistence/stats.js';
import { timelineOf } from '../../persistence/timeline.js';
import type { ActionRow } from '../../persistence/actions.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { keysetCursor, type Page, pageOf, pageWindow, parseKeysetCursor } from '../pagination.js';
import type { Clock, Store } from '../ports.js';
import type { Reader, Reads } from '../reads.js';
import type { Waits } from '../waits.js';
import { type ActionFilterQuery, toActionFilter } from './filter.js';
import { actionSummary, actionView, attemptView, statsView } from './view.js';

export interface ListQuery extends ActionFilterQuery {
  page: number;
  per_page: number;
  consistency?: Reader['consistency'];
}

/** `consistency=strong` or not, for the reads a replica may serve. */
type Consistency = Pick<Reader, 'consistency'>;

/** Reads of actions: one, a page, its attempts, the account's figures. Every query is scoped to the caller's account. */
export class ActionQueries {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      /** Places a series' next occurrences in real time (SCHED_TIME_SCALE); unscaled when absent. */
      waits?: Waits | undefined;
      /** Where lists, the inbox, stats and a view run: the read replica when allowed (app/reads.ts). */
      reads: Reads;
    },
  ) {}

  /**
   * `credentials`: whether the caller's key may see stored header values (domain/auth/api-key.ts seesCredentials).
   * `q`: the GET route's read, which a replica may serve; without it (a wait woken by the primary) the primary.
   */
  async get(accountId: string, id: string, credentials = true, q?: Consistency): Promise<Action> {
    // One snapshot: the row, its attempts and events as of one moment (a delivery may commit between two reads).
    const reader = q && { accountId, consistency: q.consistency };
    return this.deps.reads.snapshot(reader, (db) => this.viewOf(db, accountId, id, credentials));
  }

  private async viewOf(db: Sql, accountId: string, id: string, credentials: boolean): Promise<Action> {
    const row = await findAction(db, accountId, id);
    if (!row) throw new NotFoundError('action');
    return this.view(db, row, credentials);
  }

  /**
   * Runs `change` (another use case of this action, whose transaction joins this one) and answers the action's view
   * as that change leaves it: read after the commit, a worker may already have claimed a resumed action.
   */
  async viewAfter(
    accountId: string,
    id: string,
    credentials: boolean,
    change: () => Promise<unknown>,
  ): Promise<Action> {
    return this.deps.store.transaction(async (db) => {
      await change();
      return this.viewOf(db, accountId, id, credentials);
    });
  }

  /**
   * `GET /v1/actions/{id}/attempts`: the attempts newest first, a keyset page at a time. An unknown id or
   * another account's action is a 404; a cursor this service did not write is a 422 on `before`.
   */
  async attempts(
    accountId: string,
    id: string,
    q: { before?: string | undefined; limit: number } & Consistency,
  ): Promise<{ data: Action['delivery_attempts']; meta: { next_before: string | null; limit: number } }> {
    const before = q.before === undefined ? null : parseKeysetCursor(q.before);
    if (q.before !== undefined && before === null)
      throw ValidationError.field('before', 'must be a `meta.next_before` of an earlier page');
    const rows = await this.deps.reads.run({ accountId, consistency: q.consistency }, async (db) => {
      const row = await findAction(db, accountId, id);
      if (!row) throw new NotFoundError('action');
      return attemptPage(db, row.id, { limit: q.limit + 1, before });
    });
    const shown = rows.slice(0, q.limit);
    const last = shown.at(-1);
    return {
      data: shown.map(attemptView),
      meta: {
        next_before:
          rows.length > q.limit && last ? keysetCursor({ at: last.started_at, id: last.id }) : null,
        limit: q.limit,
      },
    };
  }

  async list(accountId: string, q: ListQuery): Promise<Page<ActionSummary>> {
    const filter = toActionFilter(q);
    // A status that names nothing matches nothing.
    const listing =
      filter === null
        ? { total: 0, rows: [] }
        : await this.deps.reads.run({ accountId, consistency: q.consistency }, (db) =>
            listActions(db, accountId, filter, pageWindow(q), this.deps.clock()),
          );
    return pageOf(listing.rows.map(actionSummary), listing, q);
  }

  /** The console's overview: actions per state and the last 24 hours of deliveries (`GET /v1/stats`). */
  async stats(accountId: string, q: Consistency = {}): Promise<ActionStats> {
    const until = this.deps.clock();
    const since = new Date(until.getTime() - 24 * 3_600_000);
    const [byStatus, waiting, figures, failing] = await this.deps.reads.run({ accountId, ...q }, (db) =>
      Promise.all([
        countActionsByStatus(db, accountId, until),
        countApprovalsWaiting(db, accountId, until),
        deliveryFigures(db, accountId, since, until),
        failingUrls(db, accountId, since, until, 500),
      ]),
    );
    return statsView({ byStatus, waiting }, figures, failing, since, until);
  }

  async coordinationKeys(accountId: string): Promise<string[]> {
    return coordinationKeys(this.deps.store.sql, accountId);
  }

  async view(db: Sql, row: ActionRow, credentials = true): Promise<Action> {
    const waits = this.deps.waits;
    // The timeline (reminder_events) holds an approval's answers, pauses and resumes of either mode, and the bulk
    // operations that changed the action.
    // The newest attempts only, one more than shown to tell whether older ones exist.
    const [newest, events, replays, bulkOperations] = await Promise.all([
      attemptPage(db, row.id, { limit: ACTION_VIEW_ATTEMPTS + 1 }),
      timelineOf(db, row.id),
      replaysOf(db, row.id),
      bulkEventsOf(db, row.id),
    ]);
    const history = { replays, bulkOperations };
    const attempts = {
      rows: newest.slice(0, ACTION_VIEW_ATTEMPTS).reverse(),
      more: newest.length > ACTION_VIEW_ATTEMPTS,
    };
    if (row.mode !== 'approval')
      return actionView(
        row,
        attempts,
        { recipients: [], events, attachments: [] },
        credentials,
        history,
        waits,
      );
    const [recipients, attachments] = await Promise.all([
      recipientsOf(db, row.id),
      attachmentsOf(db, row.id),
    ]);
    return actionView(row, attempts, { recipients, events, attachments }, credentials, history, waits);
  }
}
