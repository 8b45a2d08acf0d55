import { randomUUID } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import { Database, migrateUp, openOrm, type Sql } from '../../server/src/persistence/database.js';
import { logAttempt } from '../../server/src/persistence/deliveries.js';

import { createTestDatabase, type TestDatabase } from './database.js';

/** Plain SQL with parameters on `db` (the transaction's, inside one): for the edge states a test sets up by hand. */
export async function rawQuery<R = Record<string, unknown>>(
  db: Sql,
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

/** A migrated database of this test file's own, opened in-process as the server opens it. */
export async function openTestDatabase(prefix: string): Promise<{
  url: string;
  database: Database;
  /** A new account on `plan`; answers its id. */
  newAccount(plan?: string): Promise<string>;
  close(): Promise<void>;
}> {
  const test: TestDatabase = await createTestDatabase(prefix);
  const database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 8 }));
  await migrateUp(database.orm);
  return {
    url: test.url,
    database,
    async newAccount(plan = 'business') {
      const id = randomUUID();
      const now = new Date();
      await database.sql
        .insertInto('accounts')
        .values({ id, name: prefix, plan: plan as never, created_at: now, updated_at: now })
        .execute();
      return id;
    },
    async close() {
      await database.close();
      await test.drop();
    },
  };
}

/**
 * A successful attempt of `actionId` started at `startedAt`, logged through the engine's insert: its id is made of
 * the process's time, so a test that wants it in a given month sets that time first.
 */
export function logSuccessfulAttempt(db: Sql, actionId: string, startedAt: Date, attemptNumber = 1) {
  return logAttempt(db, {
    actionId,
    attemptNumber,
    dueAt: startedAt,
    startedAt,
    durationMs: 5,
    statusCode: 200,
    outcome: 'success',
    errorClass: null,
    error: null,
    excerpt: 'ok',
    truncated: false,
  });
}
