import { Migration } from '@mikro-orm/migrations';

/** Typed answers (`recipients.values`) and standing grants (docs/agents.md). */
export class Migration20261128161000_AnswerValuesGrants extends Migration {
  override name = 'Migration20261128161000_AnswerValuesGrants';

  override up(): void | Promise<void> {
    this.addSql(`alter table "recipients" add "values" jsonb null;`);
    this.addSql(
      `create table "grants" ("id" uuid not null, "account_id" uuid not null, "key" varchar(200) not null, "action_id" uuid not null, "recipient_id" uuid not null, "given_by" varchar(320) not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "grants_account_id_key_expires_at_index" on "grants" ("account_id", "key", "expires_at");`,
    );
    this.addSql(
      `alter table "grants" add constraint "grants_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "grants" cascade;`);
    this.addSql(`alter table "recipients" drop column "values";`);
  }
}
