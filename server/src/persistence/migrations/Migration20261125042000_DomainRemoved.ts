import { Migration } from '@mikro-orm/migrations';

/** DELETE /domains/{domain} removes the domain from the account's list, keeping its counts. */
export class Migration20261125042000_DomainRemoved extends Migration {
  override name = 'Migration20261125042000_DomainRemoved';

  override up(): void | Promise<void> {
    this.addSql(`alter table "domains" add column "removed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "domains" drop column "removed_at";`);
  }
}
