import { randomUUID } from 'node:crypto';
import { Database } from '../../server/src/persistence/database.js';
import { createOrm, migrateUp } from '../../server/src/persistence/orm.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/** A migrated database of this test file's own, opened in-process as the server opens it. */
export async function openTestDatabase(prefix: string): Promise<{
  url: string;
  database: Database;
  /** A new account on `plan`; answers its id. */
  newAccount(plan?: string): Promise<string>;
  close(): Promise<void>;
}> {
  const test: TestDatabase = await createTestDatabase(prefix);
  const database = new Database(await createOrm({ databaseUrl: test.url, poolSize: 8 }));
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
