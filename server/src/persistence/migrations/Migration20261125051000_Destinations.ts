import { Migration } from '@mikro-orm/migrations';

export class Migration20261125051000_Destinations extends Migration {
  override name = 'Migration20261125051000_Destinations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "destinations" ("account_id" uuid not null, "host" varchar(255) not null, "flow" jsonb null, "circuit" jsonb null, "paused_at" timestamptz null, "paused_until" timestamptz null, "pause_note" varchar(1000) null, "rate_window_start" timestamptz null, "rate_window_count" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("account_id", "host"));`,
    );
    this.addSql(`alter table "actions" add "held_since" timestamptz null, add "held_by" varchar(16) null;`);
    this.addSql(`alter table "delivery_attempts" add "held_ms" int null, add "held_by" varchar(16) null;`);
    this.addSql(
      `alter table "destinations" add constraint "destinations_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }
}
