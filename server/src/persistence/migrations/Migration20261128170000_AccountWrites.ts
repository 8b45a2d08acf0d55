import { Migration } from '@mikro-orm/migrations';

/** When an account last wrote, for reads on a replica (entities/rate-limit.ts `account_writes`); unlogged. */
export class Migration20261128170000_AccountWrites extends Migration {
  override name = 'Migration20261128170000_AccountWrites';

  override up(): void | Promise<void> {
    this.addSql(
      `create unlogged table "account_writes" ("account_id" uuid not null, "written_at" timestamptz not null, primary key ("account_id"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "account_writes";`);
  }
}
