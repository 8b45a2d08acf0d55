import { Migration } from '@mikro-orm/migrations';

/** Templates with the SHA-256 of their trigger token, looked up by equality in a unique index. */
export class Migration20261122234945_Templates extends Migration {
  override name = 'Migration20261122234945_Templates';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "templates" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "description" text null, "type" varchar(16) not null, "mode" varchar(16) null, "timezone" varchar(64) not null, "request_config" jsonb null, "gate_config" jsonb null, "max_attempts" int null, "retry_strategy" varchar(16) null, "webhook_secret" varchar(255) null, "callback_url" varchar(2048) null, "chain_steps" jsonb null, "chain_error_handling" varchar(16) null, "placeholders" jsonb not null, "dedup_keys" text[] not null default '{}', "token_hash" varchar(64) not null, "token_prefix" varchar(16) not null, "is_active" boolean not null default true, "trigger_count" int not null default 0, "failed_trigger_count" int not null default 0, "last_triggered_at" timestamptz null, "last_failed_at" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "templates" add constraint "templates_token_hash_unique" unique ("token_hash");`,
    );
    this.addSql(
      `create index "templates_account_id_created_at_index" on "templates" ("account_id", "created_at");`,
    );

    this.addSql(
      `alter table "templates" add constraint "templates_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "templates" cascade;`);
  }
}
