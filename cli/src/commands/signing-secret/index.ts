import type { SigningSecret } from '@sched/sdk';
import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

/** The secret as `show` and `create` print it. */
const printSecret = (cmd: Command, s: SigningSecret) =>
  printText(
    cmd,
    { data: s },
    s.secret === null ? 'no signing secret' : `${s.secret}\ncreated ${s.created_at}`,
  );

/**
 * `sched signing-secret <verb>`: the account's signing secret over the API (the key in use needs the `admin` scope).
 * Actions and chains created without a `webhook_secret` of their own are created with it.
 */
export function configureSigningSecretCommand(program: Command): void {
  const signing = program
    .command('signing-secret')
    .description(
      "the account's signing secret: what actions and chains created without a webhook_secret are signed with (admin scope)",
    );
  signing
    .command('show')
    .description('print the secret and when it was made')
    .action(async (_opts: unknown, cmd: Command) => {
      printSecret(cmd, await client(cmd).signingSecret.get());
    });
  signing
    .command('create')
    .description('make a new secret, replacing the current one (what was created before keeps its own)')
    .action(async (_opts: unknown, cmd: Command) => {
      printSecret(cmd, await client(cmd).signingSecret.create());
    });
  signing
    .command('delete')
    .description('remove it: what is created from now on without a webhook_secret is not signed')
    .action(async (_opts: unknown, cmd: Command) => {
      await client(cmd).signingSecret.delete();
      printText(cmd, { deleted: true }, 'signing secret removed');
    });
}
