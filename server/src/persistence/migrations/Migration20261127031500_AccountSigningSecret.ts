import { Migration } from '@mikro-orm/migrations';

/** The account's signing secret (docs/signatures.md): what its actions and chains created without one are signed with. */
export class Migration20261127031500_AccountSigningSecret extends Migration {
  override name = 'Migration20261127031500_AccountSigningSecret';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "accounts" add column "signing_secret" varchar(255) null, add column "signing_secret_created_at" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "accounts" drop column "signing_secret", drop column "signing_secret_created_at";`,
    );
  }
}
