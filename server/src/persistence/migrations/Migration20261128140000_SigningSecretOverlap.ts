import { Migration } from '@mikro-orm/migrations';

/** The secret a rotation replaced, still signing beside the new one until the overlap the owner chose ends. */
export class Migration20261128140000_SigningSecretOverlap extends Migration {
  override name = 'Migration20261128140000_SigningSecretOverlap';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "accounts" add column "previous_signing_secret" varchar(255) null, add column "previous_signing_secret_until" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "accounts" drop column "previous_signing_secret", drop column "previous_signing_secret_until";`,
    );
  }
}
