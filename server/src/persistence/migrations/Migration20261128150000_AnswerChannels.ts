import { Migration } from '@mikro-orm/migrations';

/**
 * Answers from where the message is (docs/approvals.md): the channel of each answer on the timeline, the kind of a
 * stored token (page link, Slack button reference, email reply address), Slack channels posted to by the app
 * instead of a webhook, and the inbound answers that were not acted on.
 */
export class Migration20261128150000_AnswerChannels extends Migration {
  override name = 'Migration20261128150000_AnswerChannels';

  override up(): void | Promise<void> {
    this.addSql(`alter table "reminder_events" add column "channel" varchar(16) null;`);
    this.addSql(`alter table "response_tokens" add column "kind" varchar(16) not null default 'link';`);
    this.addSql(
      `alter table "notification_channels" alter column "webhook_url" drop not null, add column "slack_channel_id" varchar(32) null;`,
    );
    this.addSql(
      `create table "inbound_replies" ("id" uuid not null, "channel" varchar(16) not null, "account_id" uuid null, "action_id" uuid null, "recipient_id" uuid null, "sender" varchar(320) not null, "reason" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "inbound_replies_created_at_index" on "inbound_replies" ("created_at");`);
    this.addSql(`create index "inbound_replies_action_id_index" on "inbound_replies" ("action_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "inbound_replies" cascade;`);
    this.addSql(`alter table "notification_channels" drop column "slack_channel_id";`);
    this.addSql(`delete from "notification_channels" where "webhook_url" is null;`);
    this.addSql(`alter table "notification_channels" alter column "webhook_url" set not null;`);
    this.addSql(`alter table "response_tokens" drop column "kind";`);
    this.addSql(`alter table "reminder_events" drop column "channel";`);
  }
}
