import { Migration } from '@mikro-orm/migrations';

/** Templates gain the origins their URLs may resolve to, trigger caps and a schedule horizon (a trigger URL must not spend the owner's allowances). */
export class Migration20261125041500_TemplateGuards extends Migration {
  override name = 'Migration20261125041500_TemplateGuards';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "templates" add column "allowed_origins" text[] not null default '{}', add column "trigger_limit_per_hour" int null, add column "trigger_limit_per_day" int null, add column "max_schedule_days" int null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "templates" drop column "allowed_origins", drop column "trigger_limit_per_hour", drop column "trigger_limit_per_day", drop column "max_schedule_days";`,
    );
  }
}
