import { Migration } from '@mikro-orm/migrations';

export class Migration20261122233413_Domains extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "domains" ("account_id" uuid not null, "domain" varchar(253) not null, "verification_token" varchar(64) null, "verified" boolean not null default false, "verified_at" timestamptz null, "method" varchar(8) null, "verification_started_at" timestamptz null, "last_check_at" timestamptz null, "next_check_at" timestamptz null, "check_attempts" int not null default 0, "last_errors" jsonb null, "day_start" timestamptz not null, "day_count" int not null default 0, "month_start" timestamptz not null, "month_count" int not null default 0, "created_at" timestamptz not null, primary key ("account_id", "domain"))`,
    );
    this.addSql(
      `create index "domains_next_check_index" on "domains" ("next_check_at") where "next_check_at" is not null`,
    );
    this.addSql(
      `alter table "domains" add constraint "domains_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
  }
}
