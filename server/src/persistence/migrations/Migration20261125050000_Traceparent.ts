import { Migration } from '@mikro-orm/migrations';

/** Actions keep the W3C trace context of the request that created them (OpenTelemetry across the delay). */
export class Migration20261125050000_Traceparent extends Migration {
  override name = 'Migration20261125050000_Traceparent';

  override up(): void | Promise<void> {
    this.addSql(`alter table "actions" add column "traceparent" varchar(55) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "actions" drop column "traceparent";`);
  }
}
