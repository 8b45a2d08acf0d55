import {
  hashResponseToken,
  newReplyToken,
  newResponseToken,
  type ResponseTokenKind,
} from '../../domain/approval/response-token.js';
import type { Sql } from '../database.js';

/**
 * Mints one fresh link per recipient in one statement; answers each recipient's token (only its hash is stored).
 * Earlier links of the same round stay valid until the gate ends, so a reminder does not kill the first message.
 */
export async function mintResponseTokens(
  db: Sql,
  recipientIds: readonly string[],
  now: Date,
  kind: ResponseTokenKind = 'link',
): Promise<Map<string, string>> {
  const minted = recipientIds.map((id) => ({
    id,
    ...(kind === 'reply' ? newReplyToken() : newResponseToken()),
  }));
  if (minted.length > 0) {
    await db
      .insertInto('response_tokens')
      .values(minted.map((m) => ({ token_hash: m.hash, recipient_id: m.id, kind, created_at: now })))
      .execute();
  }
  return new Map(minted.map((m) => [m.id, m.token]));
}

/**
 * Whose token this is; undefined for an unknown (or revoked) token, or one of another kind: a Slack button's
 * reference or a reply address never opens the page.
 */
export function findResponseToken(
  db: Sql,
  token: string,
  kind: ResponseTokenKind = 'link',
): Promise<{ recipient_id: string; action_id: string; account_id: string } | undefined> {
  return db
    .selectFrom('response_tokens as t')
    .innerJoin('recipients as r', 'r.id', 't.recipient_id')
    .innerJoin('actions as a', 'a.id', 'r.action_id')
    .select(['t.recipient_id', 'r.action_id', 'a.account_id'])
    .where('t.token_hash', '=', hashResponseToken(token))
    .where('t.kind', '=', kind)
    .executeTakeFirst();
}

/** Every link of the action's recipients stops working (a retried gate sends new ones). */
export async function revokeResponseTokens(db: Sql, actionId: string): Promise<void> {
  await db
    .deleteFrom('response_tokens')
    .where('recipient_id', 'in', (eb) =>
      eb.selectFrom('recipients').select('id').where('action_id', '=', actionId),
    )
    .execute();
}
