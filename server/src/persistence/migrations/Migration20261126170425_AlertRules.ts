import { Migration } from '@mikro-orm/migrations';

export class Migration20261126170425_AlertRules extends Migration {
  override name = 'Migration20261126170425_AlertRules';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "alert_rules" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "enabled" boolean not null default true, "events" jsonb not null, "filter" jsonb null, "threshold" jsonb null, "channels" jsonb not null, "group_wait" varchar(16) null, "repeat_every" varchar(16) null, "late_after" varchar(16) null, "state" jsonb null, "next_alert_at" timestamptz null, "last_alerted_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "alert_rules_account_id_created_at_index" on "alert_rules" ("account_id", "created_at");`,
    );

    this.addSql(
      `create table "alert_notifications" ("id" uuid not null, "account_id" uuid not null, "rule_id" uuid not null, "test" boolean not null default false, "channel_index" int not null, "channel" jsonb not null, "message" jsonb not null, "status" varchar(16) not null, "attempt_count" int not null default 0, "last_error" text null, "created_at" timestamptz not null, "sent_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "alert_notifications_rule_id_created_at_index" on "alert_notifications" ("rule_id", "created_at");`,
    );

    this.addSql(
      `create table "operator_events" ("id" uuid not null, "account_id" uuid not null, "type" varchar(48) not null, "at" timestamptz not null, "destination_host" varchar(255) null, "subject" jsonb null, "details" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "operator_events_account_id_at_index" on "operator_events" ("account_id", "at");`,
    );

    this.addSql(
      `alter table "alert_rules" add constraint "alert_rules_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "alert_notifications" add constraint "alert_notifications_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "alert_notifications" add constraint "alert_notifications_rule_id_foreign" foreign key ("rule_id") references "alert_rules" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "operator_events" add constraint "operator_events_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }
}
