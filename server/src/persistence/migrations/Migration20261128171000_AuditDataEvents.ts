import { Migration } from '@mikro-orm/migrations';

/**
 * `action.create` becomes a data event an account may turn off (docs/audit.md, what it costs): on for every account,
 * existing ones included, until its `PATCH /v1/audit-events/settings` turns it off.
 */
export class Migration20261128171000_AuditDataEvents extends Migration {
  override name = 'Migration20261128171000_AuditDataEvents';

  override up(): void | Promise<void> {
    this.addSql(`alter table "accounts" add column "audit_action_create" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "accounts" drop column "audit_action_create";`);
  }
}
