import { Migration } from '@mikro-orm/migrations';

/**
 * API keys managed through the API: a key may expire (chosen at create, or the end of a rotation's grace period),
 * and the new `admin` scope manages keys. Each account's first key (the one account creation printed) gets `admin`,
 * as new accounts' first keys do, so an existing installation can manage its keys through the API at once.
 */
export class Migration20261125040000_ApiKeyExpiry extends Migration {
  override name = 'Migration20261125040000_ApiKeyExpiry';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_keys" add column "expires_at" timestamptz null;`);
    this.addSql(
      `update "api_keys" set "scopes" = array_append("scopes", 'admin') where "id" in (select distinct on ("account_id") "id" from "api_keys" order by "account_id", "created_at", "id") and "revoked_at" is null and not ('admin' = any("scopes"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`update "api_keys" set "scopes" = array_remove("scopes", 'admin');`);
    this.addSql(`alter table "api_keys" drop column "expires_at";`);
  }
}
