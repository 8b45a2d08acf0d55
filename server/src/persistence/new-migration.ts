import { fileURLToPath } from 'node:url';
import { migrateUp, openOrm } from './database.js';

/**
 * Developer tool: `node server/dist/persistence/new-migration.js <Name>` with DATABASE_URL set (a scratch database).
 * Applies the committed migrations, then lets MikroORM's migrator diff the entities against that schema and write
 * the difference as a new migration under src/persistence/migrations, to review, commit and register in
 * migrations/index.ts.
 */
const name = process.argv[2];
const url = process.env.DATABASE_URL;
if (!name || !url) {
  console.error('usage: DATABASE_URL=... node new-migration.js <Name>');
  process.exit(2);
}
const orm = await openOrm({ databaseUrl: url });
try {
  await migrateUp(orm);
  const dir = fileURLToPath(new URL('../../src/persistence/migrations', import.meta.url));
  const created = await orm.migrator.create(dir, false, false, name);
  console.log(
    created.fileName ? `wrote ${dir}/${created.fileName}` : 'entities and migrations agree; nothing to write',
  );
} finally {
  await orm.close();
}
