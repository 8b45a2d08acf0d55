import { Migration } from '@mikro-orm/migrations';

/**
 * Pause and resume (docs/operations.md): `actions.pause` holds the running pause (the state it came from, when, until
 * when, the note), and `paused` is a live state, so the live idempotency key stays unique through a pause.
 */
export class Migration20261125034000_Pause extends Migration {
  override name = 'Migration20261125034000_Pause';

  override up(): void | Promise<void> {
    this.addSql(`alter table "actions" add column "pause" jsonb null;`);
    this.addSql(`drop index "actions_live_idempotency_key_unique";`);
    this.addSql(
      `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "status" in ('scheduled', 'resolved', 'executing', 'awaiting_response', 'paused')`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "actions_live_idempotency_key_unique";`);
    this.addSql(
      `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "status" in ('scheduled', 'resolved', 'executing', 'awaiting_response')`,
    );
    this.addSql(`alter table "actions" drop column "pause";`);
  }
}
