import type { ApprovalSummary } from '@sched/contract';
import { parseActionStatus } from '../../domain/action/states.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import { pendingApprovals } from '../../persistence/approvals/pending.js';
import { recipientView } from '../actions/view.js';
import { ValidationError } from '../errors.js';
import { type Page, pageOf, pageWindow } from '../pagination.js';
import type { Clock, Store } from '../ports.js';
import type { Waits } from '../waits.js';

/** How near its timeout a gate counts as overdue (scaled like every service wait). */
const OVERDUE_WITHIN_MS = 3_600_000;

export interface PendingQuery {
  status?: string | undefined;
  recipient?: string | undefined;
  overdue?: boolean | undefined;
  channel?: string | undefined;
  page: number;
  per_page: number;
}

/** `GET /v1/approvals`: what waits on whom, nearest timeout first. */
export class PendingApprovals {
  constructor(private readonly deps: { store: Store; clock: Clock; waits?: Waits | undefined }) {}

  async list(accountId: string, q: PendingQuery, credentials = true): Promise<Page<ApprovalSummary>> {
    const status = parseActionStatus(q.status ?? 'awaiting_response');
    if (status === null) throw ValidationError.field('status', `'${q.status}' is not an action status`);
    const within = this.deps.waits ? this.deps.waits.wait(OVERDUE_WITHIN_MS) : OVERDUE_WITHIN_MS;
    const db = this.deps.store.sql;
    const { rows, ...counted } = await pendingApprovals(
      db,
      accountId,
      {
        status,
        recipient: q.recipient,
        channel: q.channel,
        overdueBefore: new Date(this.deps.clock().getTime() + within),
        overdueOnly: q.overdue === true,
      },
      pageWindow(q),
    );
    const data = await Promise.all(
      rows.map(async (r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        confirmation_mode: r.gate?.confirmation_mode ?? 'first_response',
        min_approvals: r.gate?.min_approvals ?? null,
        sent_at: r.gate?.sent_at ?? null,
        expires_at: r.gate?.expires_at ?? null,
        reminders_sent: r.gate?.reminders_sent ?? 0,
        overdue: r.overdue,
        recipients: (await recipientsOf(db, r.id)).map((x) => recipientView(x, credentials)),
        created_at: r.created_at.toISOString(),
      })),
    );
    return pageOf(data, counted, q);
  }
}
