import type { OutboxMessage as OutboxView } from '@sched/contract';
import type { z } from 'zod';
import { listOutboxMessages, type OutboxMessage } from '../persistence/approvals/outbox-messages.js';
import type { Database } from '../persistence/database.js';
import { NotFoundError } from './errors.js';

type OutboxEntry = z.output<typeof OutboxView>;

/** The response link a rendered message carries (every channel's text names it on a line of its own). */
function responseLinkOf(rendered: string): string | null {
  return /^Response link: (\S+)$/m.exec(rendered)?.[1] ?? null;
}

function toView(row: OutboxMessage): OutboxEntry {
  return {
    id: row.id,
    action_id: row.action_id,
    channel: row.channel,
    destination: row.destination,
    response_link: responseLinkOf(row.rendered),
    rendered: row.rendered,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * GET /v1/outbox: an account's kept messages, on a development server only. In production the outbox is for
 * operators (the admin verb reads the database); an API key holder there sees a 404 like any unknown route.
 */
export class OutboxService {
  constructor(
    private readonly db: Database,
    private readonly enabled: boolean,
  ) {}

  async list(
    accountId: string,
    query: { action_id?: string | undefined; limit: number },
  ): Promise<OutboxEntry[]> {
    if (!this.enabled) throw new NotFoundError('route GET /v1/outbox (development servers only)');
    const rows = await listOutboxMessages(this.db.sql, {
      limit: query.limit,
      account: accountId,
      ...(query.action_id ? { action: query.action_id } : {}),
    });
    return rows.map(toView);
  }
}
