import { Migration } from '@mikro-orm/migrations';

/**
 * Destination thresholds count sends, not creates: actions and chains say whose act they are (their sends
 * count in the owner's or the triggers' counters), an action remembers which occurrence's send was counted, and a
 * callback keeps the names its URL counts against.
 */
export class Migration20261126180000_SendCounts extends Migration {
  override name = 'Migration20261126180000_SendCounts';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "actions" add column "created_via" varchar(16) not null default 'api', add column "counted_occurrence" int null;`,
    );
    this.addSql(`alter table "chains" add column "created_via" varchar(16) not null default 'api';`);
    this.addSql(
      `alter table "callback_deliveries" add column "destination_names" text[] not null default '{}';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "callback_deliveries" drop column "destination_names";`);
    this.addSql(`alter table "chains" drop column "created_via";`);
    this.addSql(`alter table "actions" drop column "created_via", drop column "counted_occurrence";`);
  }
}
