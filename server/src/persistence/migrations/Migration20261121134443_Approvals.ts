import { Migration } from '@mikro-orm/migrations';

export class Migration20261121134443_Approvals extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "attachments" ("id" uuid not null, "action_id" uuid not null, "position" int not null, "name" varchar(255) not null, "content_type" varchar(255) not null, "size" int null, "content" bytea null, "url" varchar(2048) null, primary key ("id"))`,
    );
    this.addSql(`create index "attachments_action_id_index" on "attachments" ("action_id")`);
    this.addSql(
      `create table "notification_channels" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "type" varchar(16) not null, "webhook_url" varchar(2048) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create index "notification_channels_account_id_name_index" on "notification_channels" ("account_id", "name")`,
    );
    this.addSql(
      `create table "outbox_messages" ("id" uuid not null, "account_id" uuid null, "action_id" uuid null, "channel" varchar(16) not null, "destination" varchar(2048) not null, "rendered" text not null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "outbox_messages_created_at_index" on "outbox_messages" ("created_at")`);
    this.addSql(
      `create table "recipients" ("id" uuid not null, "action_id" uuid not null, "position" int not null, "role" varchar(16) not null, "reference" varchar(320) not null, "address" varchar(320) not null, "display_name" varchar(255) not null, "targets" jsonb not null, "status" varchar(16) not null, "responded_at" timestamptz null, "response_comment" varchar(500) null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create index "recipients_action_id_position_index" on "recipients" ("action_id", "position")`,
    );
    this.addSql(
      `create table "notifications" ("id" uuid not null, "action_id" uuid not null, "recipient_id" uuid not null, "channel" varchar(16) not null, "kind" varchar(16) not null, "ok" boolean not null, "via" varchar(16) not null, "provider_message_id" varchar(255) null, "error" text null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create index "notifications_action_id_created_at_index" on "notifications" ("action_id", "created_at")`,
    );
    this.addSql(
      `create table "reminder_events" ("id" uuid not null, "action_id" uuid not null, "event_type" varchar(16) not null, "actor_email" varchar(320) null, "notes" text null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create index "reminder_events_action_id_created_at_index" on "reminder_events" ("action_id", "created_at")`,
    );
    this.addSql(
      `create table "response_tokens" ("token_hash" varchar(64) not null, "recipient_id" uuid not null, "created_at" timestamptz not null, primary key ("token_hash"))`,
    );
    this.addSql(
      `create table "team_members" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "email" varchar(255) null, "phone" varchar(16) null, "push_subscriptions" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "team_members_account_id_name_index" on "team_members" ("account_id", "name")`);
    this.addSql(
      `alter table "attachments" add constraint "attachments_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "notification_channels" add constraint "notification_channels_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "outbox_messages" add constraint "outbox_messages_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "outbox_messages" add constraint "outbox_messages_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "recipients" add constraint "recipients_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "notifications" add constraint "notifications_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "notifications" add constraint "notifications_recipient_id_foreign" foreign key ("recipient_id") references "recipients" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "reminder_events" add constraint "reminder_events_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "response_tokens" add constraint "response_tokens_recipient_id_foreign" foreign key ("recipient_id") references "recipients" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "team_members" add constraint "team_members_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
  }
}
