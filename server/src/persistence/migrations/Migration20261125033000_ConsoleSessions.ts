import { Migration } from '@mikro-orm/migrations';

/** Console sign-ins (entities/account.ts `ConsoleSessionSchema`): hashed session ids bound to an API key; the overview's index. */
export class Migration20261125033000_ConsoleSessions extends Migration {
  override name = 'Migration20261125033000_ConsoleSessions';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "console_sessions" ("id_hash" varchar(64) not null, "api_key_id" uuid not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, primary key ("id_hash"))`,
    );
    this.addSql(`create index "console_sessions_last_seen_at_index" on "console_sessions" ("last_seen_at")`);
    this.addSql(
      `alter table "console_sessions" add constraint "console_sessions_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id") on delete cascade`,
    );
    // The overview's last 24 hours of deliveries (persistence/stats.ts).
    this.addSql(`create index "delivery_attempts_started_at_index" on "delivery_attempts" ("started_at")`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "delivery_attempts_started_at_index"`);
    this.addSql(`drop table if exists "console_sessions" cascade`);
  }
}
