import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createOrm, migrateUp } from './orm.js';

/**
 * Developer tool: `node server/dist/persistence/new-migration.js <Name>` with DATABASE_URL set.
 * Applies the committed migrations, diffs them against the entities, and writes the difference as a new
 * migration source file to review, commit and register in migrations/index.ts.
 */
const name = process.argv[2];
const url = process.env.DATABASE_URL;
if (!name || !url) {
  console.error('usage: DATABASE_URL=... node new-migration.js <Name>');
  process.exit(2);
}
const orm = await createOrm({ databaseUrl: url });
try {
  await migrateUp(orm);
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
  const statements = sql
    .split(/;\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s && !s.startsWith('set names'));
  if (statements.length === 0) {
    console.log('entities and migrations agree; nothing to write');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const className = `Migration${stamp}${name}`;
    const body = statements.map((s) => `    this.addSql(\`${s}\`);`).join('\n');
    const file = fileURLToPath(new URL(`../../src/persistence/migrations/${className}.ts`, import.meta.url));
    writeFileSync(
      file,
      `import { Migration } from '@mikro-orm/migrations';\n\nexport class ${className} extends Migration {\n  override async up(): Promise<void> {\n${body}\n  }\n}\n`,
    );
    console.log(`wrote ${file}`);
  }
} finally {
  await orm.close();
}
