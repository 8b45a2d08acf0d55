import { randomUUID } from 'node:crypto';
import type { Sql } from '../database.js';

/** What the API and the response page show of an attachment (never its content). */
export interface AttachmentMeta {
  id: string;
  name: string;
  content_type: string;
  size: number | null;
  url: string | null;
}

export async function insertAttachments(
  db: Sql,
  actionId: string,
  attachments: readonly { name: string; content_type: string; content: Buffer | null; url: string | null }[],
): Promise<void> {
  if (attachments.length === 0) return;
  await db
    .insertInto('attachments')
    .values(
      attachments.map((a, i) => ({
        id: randomUUID(),
        action_id: actionId,
        position: i,
        name: a.name,
        content_type: a.content_type,
        size: a.content ? a.content.length : null,
        content: a.content,
        url: a.url,
      })),
    )
    .execute();
}

export function attachmentsOf(db: Sql, actionId: string): Promise<AttachmentMeta[]> {
  return db
    .selectFrom('attachments')
    .select(['id', 'name', 'content_type', 'size', 'url'])
    .where('action_id', '=', actionId)
    .orderBy('position')
    .execute();
}

/** The files sent with email messages: attachments with content, in order. */
export async function attachmentFilesOf(
  db: Sql,
  actionId: string,
): Promise<{ name: string; content_type: string; content: Buffer }[]> {
  const rows = await db
    .selectFrom('attachments')
    .select(['name', 'content_type', 'content'])
    .where('action_id', '=', actionId)
    .where('content', 'is not', null)
    .orderBy('position')
    .execute();
  return rows.map((r) => ({ name: r.name, content_type: r.content_type, content: r.content! }));
}

export function findAttachment(
  db: Sql,
  actionId: string,
  id: string,
): Promise<(AttachmentMeta & { content: Buffer | null }) | undefined> {
  return db
    .selectFrom('attachments')
    .select(['id', 'name', 'content_type', 'size', 'url', 'content'])
    .where('action_id', '=', actionId)
    .where('id', '=', id)
    .executeTakeFirst();
}
