import { Migration } from '@mikro-orm/migrations';

/**
 * Workers claim due attempts from `actions` itself (app/deliveries/firing.ts): no job per attempt to keep track of.
 * Each attempt updates its row twice (claimed, then done): the dedup keys index keeps only rows that have keys, and
 * pages keep room so an updated row can stay on its page (fewer pages written, smaller WAL records).
 */
export class Migration20261126195000_ClaimFromActions extends Migration {
  override name = 'Migration20261126195000_ClaimFromActions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "actions" drop column "job_due_at";`);
    this.addSql(`drop index "actions_dedup_keys_index";`);
    this.addSql(
      `create index "actions_dedup_keys_index" on "actions" using gin ("dedup_keys") where "dedup_keys" <> '{}';`,
    );
    this.addSql(`alter table "actions" set (fillfactor = 80);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "actions" reset (fillfactor);`);
    this.addSql(`drop index "actions_dedup_keys_index";`);
    this.addSql(`create index "actions_dedup_keys_index" on "actions" using gin ("dedup_keys");`);
    this.addSql(`alter table "actions" add column "job_due_at" timestamptz null;`);
  }
}
