import { Migration } from '@mikro-orm/migrations';

export class Migration20261121131109_Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "accounts" ("id" uuid not null, "name" varchar(255) not null, "plan" text not null, "rate_limit_factor" double precision not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create table "api_keys" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) null, "prefix" varchar(32) not null, "key_hash" varchar(64) not null, "scopes" text[] not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash")`);
    this.addSql(
      `create table "contacts" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "email" varchar(255) null, "phone" varchar(16) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(`create index "contacts_account_id_name_index" on "contacts" ("account_id", "name")`);
    this.addSql(
      `create table "rate_limit_windows" ("bucket" varchar(255) not null, "window_start" timestamptz not null, "hits" int not null default 0, "expires_at" timestamptz not null, primary key ("bucket", "window_start"))`,
    );
    this.addSql(`create index "rate_limit_windows_expires_at_index" on "rate_limit_windows" ("expires_at")`);
    this.addSql(
      `alter table "accounts" add constraint "accounts_plan_check" check ("plan" in ('free', 'pro', 'business'))`,
    );
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "contacts" add constraint "contacts_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
  }
}
