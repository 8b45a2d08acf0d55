import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import type { ChannelTarget } from '../channels/types.js';
import type { StoredRecipientTarget } from './action-store.js';
import type { Sql } from './db.js';

export type RecipientStatus = 'pending' | 'confirmed' | 'declined' | 'snoozed';

export interface RecipientRow extends QueryResultRow {
  id: string;
  action_id: string;
  position: number;
  role: 'recipient' | 'escalation';
  reference: string;
  address: string;
  display_name: string;
  targets: ChannelTarget[];
  status: RecipientStatus;
  responded_at: Date | string | null;
  response_comment: string | null;
  created_at: Date | string;
}

export interface ReminderEventRow extends QueryResultRow {
  id: string;
  action_id: string;
  event_type: 'sent' | 'confirmed' | 'declined' | 'snoozed' | 'escalated' | 'expired';
  actor_email: string | null;
  notes: string | null;
  created_at: Date | string;
}

export interface AttachmentMetaRow extends QueryResultRow {
  id: string;
  name: string;
  content_type: string;
  size: number | null;
  url: string | null;
}

/** A response token: 32 random bytes (256 bits), base64url; only its SHA-256 is stored. */
export function newResponseToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashResponseToken(token) };
}

export function hashResponseToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** SQL for gates: recipients, their links, the event timeline and attachments. */
export const approvalSql = {
  async insertRecipients(
    tx: Sql,
    actionId: string,
    role: 'recipient' | 'escalation',
    recipients: StoredRecipientTarget[],
    startAt = 0,
  ) {
    const rows: RecipientRow[] = [];
    for (const [i, r] of recipients.entries()) {
      const [row] = await tx.query<RecipientRow>(
        `insert into recipients (id, action_id, position, role, reference, address, display_name, targets, status, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', now()) returning *`,
        [
          randomUUID(),
          actionId,
          startAt + i,
          role,
          r.reference,
          r.address,
          r.displayName.slice(0, 255),
          JSON.stringify(r.targets),
        ],
      );
      rows.push(row!);
    }
    return rows;
  },

  async insertAttachments(
    tx: Sql,
    actionId: string,
    attachments: { name: string; content_type: string; content: Buffer | null; url: string | null }[],
  ) {
    for (const [i, a] of attachments.entries()) {
      await tx.query(
        `insert into attachments (id, action_id, position, name, content_type, size, content, url) values ($1,$2,$3,$4,$5,$6,$7,$8)`,
        [
          randomUUID(),
          actionId,
          i,
          a.name,
          a.content_type,
          a.content ? a.content.length : null,
          a.content,
          a.url,
        ],
      );
    }
  },

  recipients(db: Sql, actionId: string): Promise<RecipientRow[]> {
    return db.query<RecipientRow>('select * from recipients where action_id = $1 order by position', [
      actionId,
    ]);
  },

  events(db: Sql, actionId: string): Promise<ReminderEventRow[]> {
    return db.query<ReminderEventRow>(
      'select * from reminder_events where action_id = $1 order by created_at, id',
      [actionId],
    );
  },

  attachmentsMeta(db: Sql, actionId: string): Promise<AttachmentMetaRow[]> {
    return db.query<AttachmentMetaRow>(
      'select id, name, content_type, size, url from attachments where action_id = $1 order by position',
      [actionId],
    );
  },

  async attachmentsWithContent(db: Sql, actionId: string) {
    return db.query<AttachmentMetaRow & { content: Buffer | null }>(
      'select id, name, content_type, size, url, content from attachments where action_id = $1 order by position',
      [actionId],
    );
  },

  async attachment(db: Sql, actionId: string, id: string) {
    const [row] = await db.query<AttachmentMetaRow & { content: Buffer | null }>(
      'select id, name, content_type, size, url, content from attachments where action_id = $1 and id = $2',
      [actionId, id],
    );
    return row ?? null;
  },

  async addEvent(
    tx: Sql,
    actionId: string,
    type: ReminderEventRow['event_type'],
    actor: string | null,
    notes: string | null,
  ) {
    await tx.query(
      `insert into reminder_events (id, action_id, event_type, actor_email, notes, created_at) values ($1, $2, $3, $4, $5, clock_timestamp())`,
      [randomUUID(), actionId, type, actor, notes],
    );
  },

  /** Mints a fresh link for a recipient; earlier links stay valid until the gate ends. */
  async mintToken(tx: Sql, recipientId: string): Promise<string> {
    const { token, hash } = newResponseToken();
    await tx.query(
      'insert into response_tokens (token_hash, recipient_id, created_at) values ($1, $2, now())',
      [hash, recipientId],
    );
    return token;
  },

  async findByToken(
    db: Sql,
    token: string,
  ): Promise<{ recipient_id: string; action_id: string; account_id: string } | null> {
    const [row] = await db.query<{ recipient_id: string; action_id: string; account_id: string }>(
      `select r.id as recipient_id, r.action_id, a.account_id from response_tokens t
         join recipients r on r.id = t.recipient_id join actions a on a.id = r.action_id
        where t.token_hash = $1`,
      [hashResponseToken(token)],
    );
    return row ?? null;
  },

  async logNotification(
    db: Sql,
    n: {
      actionId: string;
      recipientId: string;
      channel: string;
      kind: string;
      ok: boolean;
      via: string;
      providerMessageId?: string | undefined;
      error?: string | undefined;
    },
  ) {
    await db.query(
      `insert into notifications (id, action_id, recipient_id, channel, kind, ok, via, provider_message_id, error, created_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9, now())`,
      [
        randomUUID(),
        n.actionId,
        n.recipientId,
        n.channel,
        n.kind,
        n.ok,
        n.via,
        n.providerMessageId ?? null,
        n.error ?? null,
      ],
    );
  },
};
