import { Migration } from '@mikro-orm/migrations';

/**
 * The due index leaves out attempts held by their destination (they have actions_held_index). The claim reads its
 * candidates through it in due order whatever the statistics say: with the held filter outside the index, a table
 * without fresh statistics was read by a bitmap scan and a sort of every due row, at each claim.
 */
export class Migration20261127021000_DueIndexUnheld extends Migration {
  override name = 'Migration20261127021000_DueIndexUnheld';

  override up(): void | Promise<void> {
    this.addSql(`drop index "actions_due_index";`);
    this.addSql(
      `create index "actions_due_index" on "actions" ("next_attempt_at") where "status" in ('scheduled', 'resolved') and "held_since" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "actions_due_index";`);
    this.addSql(
      `create index "actions_due_index" on "actions" ("next_attempt_at") where "status" in ('scheduled', 'resolved');`,
    );
  }
}
