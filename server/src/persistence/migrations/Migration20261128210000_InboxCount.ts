import { Migration } from '@mikro-orm/migrations';

/**
 * The account's phase index leaves a chain's steps out, as every list does, so that counting a list (the failed
 * inbox's `meta.total` above all) reads the index alone instead of visiting each matching row for its `chain_id`.
 */
export class Migration20261128210000_InboxCount extends Migration {
  override name = 'Migration20261128210000_InboxCount';

  override up(): void | Promise<void> {
    this.addSql(`drop index "actions_account_phase_index";`);
    this.addSql(
      `create index "actions_account_phase_index" on "actions" ("account_id", "phase", "created_at") where "chain_id" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "actions_account_phase_index";`);
    this.addSql(
      `create index "actions_account_phase_index" on "actions" ("account_id", "phase", "created_at");`,
    );
  }
}
