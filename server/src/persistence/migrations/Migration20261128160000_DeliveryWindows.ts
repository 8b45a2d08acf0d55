import { Migration } from '@mikro-orm/migrations';

/** Delivery windows on actions (what the window is and what it did) and templates, and the accounts' calendars. */
export class Migration20261128160000_DeliveryWindows extends Migration {
  override name = 'Migration20261128160000_DeliveryWindows';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "actions" add column "delivery_window" jsonb null, add column "window_state" jsonb null;`,
    );
    this.addSql(`alter table "templates" add column "delivery_window" jsonb null;`);
    this.addSql(
      `create table "calendars" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "timezone" varchar(64) not null, "dates" text[] not null default '{}', "holidays" varchar(16) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "calendars_account_id_created_at_index" on "calendars" ("account_id", "created_at");`,
    );
    this.addSql(
      `alter table "calendars" add constraint "calendars_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "calendars" cascade;`);
    this.addSql(`alter table "templates" drop column "delivery_window";`);
    this.addSql(`alter table "actions" drop column "delivery_window", drop column "window_state";`);
  }
}
