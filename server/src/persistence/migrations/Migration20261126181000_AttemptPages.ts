import { Migration } from '@mikro-orm/migrations';

/** An action's attempts, newest first a keyset page at a time (GET /v1/actions/{id}/attempts). */
export class Migration20261126181000_AttemptPages extends Migration {
  override name = 'Migration20261126181000_AttemptPages';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "delivery_attempts_action_id_started_at_index" on "delivery_attempts" ("action_id", "started_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "delivery_attempts_action_id_started_at_index";`);
  }
}
