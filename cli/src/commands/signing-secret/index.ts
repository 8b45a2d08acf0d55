import { SigningSecretRotate } from '@sched/contract';
import type { SigningSecret } from '@sched/sdk';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';

/** The secret as `show` and `create` print it. */
const printSecret = (cmd: Command, s: SigningSecret) =>
  printText(
    cmd,
    { data: s },
    s.secret === null
      ? 'no signing secret'
      : `${s.secret}\ncreated ${s.created_at}${
          s.previous_expires_at ? `\nthe replaced secret also signs until ${s.previous_expires_at}` : ''
        }`,
  );

/**
 * `sched signing-secret <verb>`: the account's signing secret over the API (the key in use needs the `admin` scope).
 * Every account is made with one; actions and chains without a `webhook_secret` of their own are signed with it.
 */
export function configureSigningSecretCommand(program: Command): void {
  const signing = program
    .command('signing-secret')
    .description(
      "the account's signing secret: what actions and chains without a webhook_secret of their own are signed with (admin scope)",
    );
  signing
    .command('show')
    .description('print the secret and when it was made')
    .action(async (_opts: unknown, cmd: Command) => {
      printSecret(cmd, await client(cmd).signingSecret.get());
    });
  signing
    .command('create')
    .description('make a new secret, replacing the current one; live actions, series and chains follow it')
    .option(
      '--overlap <duration>',
      'how long the replaced secret also signs (default 24h, at most 30d; 0s after a leak)',
    )
    .action(async (opts: { overlap?: string }, cmd: Command) => {
      const body = parseOptions(SigningSecretRotate, { overlap: opts.overlap });
      printSecret(cmd, await client(cmd).signingSecret.create(body));
    });
  signing
    .command('delete')
    .description('remove it: what the account sends without a webhook_secret of its own is not signed')
    .action(async (_opts: unknown, cmd: Command) => {
      await client(cmd).signingSecret.delete();
      printText(cmd, { deleted: true }, 'signing secret removed');
    });
}
