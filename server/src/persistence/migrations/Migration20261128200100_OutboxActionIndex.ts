import { Migration } from '@mikro-orm/migrations';

/**
 * Every table that references `actions` is read by the reference when an action is deleted (retention's delete of
 * its rows, and the foreign key's cascade); `outbox_messages` was the one without an index leading with it.
 */
export class Migration20261128200100_OutboxActionIndex extends Migration {
  override name = 'Migration20261128200100_OutboxActionIndex';

  override up(): void | Promise<void> {
    this.addSql(`create index "outbox_messages_action_id_index" on "outbox_messages" ("action_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "outbox_messages_action_id_index";`);
  }
}
