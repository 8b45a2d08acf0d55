import { Migration } from '@mikro-orm/migrations';

// The id of a month's first millisecond (`m` a UTC timestamp): a partition's lower bound (persistence/ids.ts
// `uuidv7LowerBound`).
const BOUND = (m: string) =>
  `regexp_replace(lpad(to_hex((extract(epoch from (${m}) at time zone 'UTC') * 1000)::bigint), 12, '0'), '^(.{8})(.{4})$', '\\1-\\2') || '-0000-0000-000000000000'`;
// The month (a UTC timestamp) of a time-ordered id.
const MONTH_OF_ID = `date_trunc('month', to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0) at time zone 'UTC')`;

/**
 * The attempt log becomes a table partitioned by month of its time-ordered ids, so retention drops a month whole
 * instead of deleting and vacuuming rows (persistence/partitions.ts keeps months ahead and drops those behind). Its
 * primary key is (action_id, id): one index serves uniqueness, an action's attempts newest first and the cascade of
 * an action's delete. Rows written before ids were time-ordered get an id of their start time, so each lands in its
 * month. The rows move by INSERT ... SELECT under this migration's lock: every row is kept.
 */
export class Migration20261128200000_AttemptPartitions extends Migration {
  override name = 'Migration20261128200000_AttemptPartitions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "delivery_attempts" rename to "delivery_attempts_unpartitioned";`);
    this.addSql(
      `alter table "delivery_attempts_unpartitioned" drop constraint "delivery_attempts_action_id_foreign", drop constraint "delivery_attempts_pkey";`,
    );
    this.addSql(`drop index "delivery_attempts_action_id_started_at_index";`);
    this.addSql(`drop index "delivery_attempts_started_at_index";`);
    this.addSql(
      `update "delivery_attempts_unpartitioned" set "id" = (lpad(to_hex((extract(epoch from "started_at") * 1000)::bigint), 12, '0') || '7' || substr(replace("id"::text, '-', ''), 14))::uuid where substr("id"::text, 15, 1) <> '7';`,
    );
    this.addSql(
      `create table "delivery_attempts" (like "delivery_attempts_unpartitioned" including defaults) partition by range ("id");`,
    );
    this.addSql(`do $$
declare m timestamp;
begin
  for m in
    select ${MONTH_OF_ID} from "delivery_attempts_unpartitioned"
    union select date_trunc('month', now() at time zone 'UTC') + make_interval(months => k) from generate_series(0, 2) k
  loop
    execute format('create table if not exists %I partition of "delivery_attempts" for values from (%L) to (%L)',
      'delivery_attempts_y' || to_char(m, 'YYYY') || 'm' || to_char(m, 'MM'),
      ${BOUND('m')}, ${BOUND(`m + interval '1 month'`)});
  end loop;
end $$;`);
    this.addSql(`insert into "delivery_attempts" select * from "delivery_attempts_unpartitioned";`);
    this.addSql(`drop table "delivery_attempts_unpartitioned";`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_pkey" primary key ("action_id", "id");`,
    );
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "delivery_attempts_started_at_index" on "delivery_attempts" using brin ("started_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "delivery_attempts" rename to "delivery_attempts_partitioned";`);
    this.addSql(
      `alter table "delivery_attempts_partitioned" drop constraint "delivery_attempts_action_id_foreign", drop constraint "delivery_attempts_pkey";`,
    );
    this.addSql(`drop index "delivery_attempts_started_at_index";`);
    this.addSql(
      `create table "delivery_attempts" (like "delivery_attempts_partitioned" including defaults);`,
    );
    this.addSql(`insert into "delivery_attempts" select * from "delivery_attempts_partitioned";`);
    this.addSql(`drop table "delivery_attempts_partitioned";`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_pkey" primary key ("id");`,
    );
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "delivery_attempts_action_id_started_at_index" on "delivery_attempts" ("action_id", "started_at");`,
    );
    this.addSql(
      `create index "delivery_attempts_started_at_index" on "delivery_attempts" using brin ("started_at");`,
    );
  }
}
