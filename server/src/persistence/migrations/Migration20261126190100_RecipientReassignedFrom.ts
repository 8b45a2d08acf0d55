import { Migration } from '@mikro-orm/migrations';

/** Reassignment (docs/approvals.md): the recipient a new one took over from. */
export class Migration20261126190100_RecipientReassignedFrom extends Migration {
  override name = 'Migration20261126190100_RecipientReassignedFrom';

  override up(): void | Promise<void> {
    this.addSql(`alter table "recipients" add "reassigned_from" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "recipients" drop column "reassigned_from";`);
  }
}
