import { Migration } from '@mikro-orm/migrations';
import { type StoredTemplate, storedTemplateErrors } from '../../domain/template/placeholders.js';

/**
 * Templates saved before allowed_origins existed may take a host or a path prefix from a trigger value. Each active
 * template is checked with the rules a save applies now; one that fails them is deactivated (its trigger answers 404
 * until its owner edits it and turns it on again), with the reason in `last_error`. Nothing else changes: chains and
 * actions already made are held to the same rule when their steps start.
 */
export class Migration20261128134000_LegacyTemplateOrigins extends Migration {
  override name = 'Migration20261128134000_LegacyTemplateOrigins';

  override async up(): Promise<void> {
    const rows = await this.execute(
      `select id, type, name, request_config, gate_config, dedup_keys, allowed_origins, chain_steps, placeholders
         from "templates" where is_active`,
    );
    for (const row of rows) {
      const errors = storedTemplateErrors(row as unknown as StoredTemplate);
      const reasons = Object.entries(errors).map(([path, messages]) => `${path}: ${messages.join('; ')}`);
      if (reasons.length === 0) continue;
      const reason = `deactivated on upgrade (the checks of a save fail): ${reasons.join(' | ')}`;
      await this.execute(`update "templates" set is_active = false, last_error = ? where id = ?`, [
        reason.slice(0, 1000),
        (row as { id: string }).id,
      ]);
    }
  }

  override down(): void {
    // Deactivation is not undone: the owner turns a fixed template on again.
  }
}
