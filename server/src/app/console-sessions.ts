import { randomBytes } from 'node:crypto';
import { hashApiKey, type Scope } from '../domain/auth/api-key.js';
import { csrfTokenOf, hashSessionId, idleCutoff, lifetimeCutoff } from '../domain/auth/console-session.js';
import {
  deleteConsoleSession,
  findLiveKeyByHash,
  insertConsoleSession,
  pruneConsoleSessions,
  touchConsoleSession,
} from '../persistence/console-sessions.js';
import { UnauthorizedError } from './errors.js';
import type { Clock, Store } from './ports.js';

/** What the console learns about its session: never the key, never the session id (the cookie holds that). */
export interface ConsoleSessionView {
  csrf_token: string;
  scopes: Scope[];
}

/**
 * Console sign-in (docs/console.md): an API key is exchanged for a random session id, which the browser keeps in
 * an HttpOnly cookie; the key itself is not kept anywhere. Requests with the cookie then act as that key.
 */
export class ConsoleSessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Opens a session for a live key; answers the new session id (for the cookie) and the view. */
  async signIn(apiKey: string): Promise<{ id: string; view: ConsoleSessionView }> {
    const now = this.clock();
    const key = await findLiveKeyByHash(this.store.sql, hashApiKey(apiKey), now);
    if (!key) throw new UnauthorizedError('invalid API key');
    const id = randomBytes(32).toString('base64url');
    await this.store.transaction(async (db) => {
      await pruneConsoleSessions(db, idleCutoff(now), lifetimeCutoff(now));
      await insertConsoleSession(db, { idHash: hashSessionId(id), apiKeyId: key.id, now });
    });
    return { id, view: { csrf_token: csrfTokenOf(id), scopes: key.scopes as Scope[] } };
  }

  /** The hash of the key a live session acts as (its idle clock restarts), or null (idle 12 h, or 7 days old). */
  async keyHashOf(id: string): Promise<{ keyHash: string; view: ConsoleSessionView } | null> {
    const now = this.clock();
    const found = await touchConsoleSession(
      this.store.sql,
      hashSessionId(id),
      now,
      idleCutoff(now),
      lifetimeCutoff(now),
    );
    if (!found) return null;
    return {
      keyHash: found.key_hash,
      view: { csrf_token: csrfTokenOf(id), scopes: found.scopes as Scope[] },
    };
  }

  async signOut(id: string): Promise<void> {
    await deleteConsoleSession(this.store.sql, hashSessionId(id));
  }
}
