import { ApiKeyRotate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';

export function configureKeysRotateCommand(keys: Command): void {
  keys
    .command('rotate <id>')
    .description(
      'a new secret for a key (same name and scopes); the old one keeps working for the grace period',
    )
    .option(
      '--grace-period <duration>',
      'how long the old secret keeps working: 24h (default), up to 30d; 0s ends it now',
    )
    .option('--expires-at <time>', 'ISO 8601 time when the new key stops working (default: never)')
    .action(async (id: string, opts: { gracePeriod?: string; expiresAt?: string }, cmd: Command) => {
      const body = parseOptions(ApiKeyRotate, {
        ...(opts.gracePeriod ? { grace_period: opts.gracePeriod } : {}),
        ...(opts.expiresAt ? { expires_at: opts.expiresAt } : {}),
      });
      const rotated = await client(cmd).keys.rotate(id, body);
      printText(
        cmd,
        rotated,
        `key ${rotated.data.id} (${rotated.data.scopes.join(',')})\napi key: ${rotated.data.key}\n` +
          `the old key ${rotated.meta.previous_key_id} keeps working until ${rotated.meta.previous_key_expires_at}`,
      );
    });
}
