import { hashResponseToken, newResponseToken } from '../../domain/approval/response-token.js';
import type { Sql } from '../database.js';

/**
 * Mints one fresh link per recipient in one statement; answers each recipient's token (only its hash is stored).
 * Earlier links of the same round stay valid until the gate ends, so a reminder does not kill the first message.
 */
export async function mintResponseTokens(
  db: Sql,
  recipientIds: readonly string[],
  now: Date,
): Promise<Map<string, string>> {
  const minted = recipientIds.map((id) => ({ id, ...newResponseToken() }));
  if (minted.length > 0) {
    await db
      .insertInto('response_tokens')
      .values(minted.map((m) => ({ token_hash: m.hash, recipient_id: m.id, created_at: now })))
      .execute();
  }
  return new Map(minted.map((m) => [m.id, m.token]));
}

/** Whose link a token is; undefined for an unknown (or revoked) token. */
export function findResponseToken(
  db: Sql,
  token: string,
): Promise<{ recipient_id: string; action_id: string; account_id: string } | undefined> {
  return db
    .selectFrom('response_tokens as t')
    .innerJoin('recipients as r', 'r.id', 't.recipient_id')
    .innerJoin('actions as a', 'a.id', 'r.action_id')
    .select(['t.recipient_id', 'r.action_id', 'a.account_id'])
    .where('t.token_hash', '=', hashResponseToken(token))
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
