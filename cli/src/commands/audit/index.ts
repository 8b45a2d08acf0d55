import type { AuditSettings } from '@sched/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { client, printText } from '../../runtime.js';

const onOff = (value: string): boolean => {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('on or off');
};

const printSettings = (cmd: Command, s: AuditSettings) =>
  printText(cmd, { data: s }, `action.create events: ${s.action_create ? 'on' : 'off'}`);

/** `sched audit <verb>`: the account's audit log over the API (docs/audit.md). */
export function configureAuditCommand(program: Command): void {
  const audit = program.command('audit').description("the account's hash-chained audit log");
  audit
    .command('verify')
    .description('recompute the chain from its anchor to its head; exits 1 when it is broken')
    .action(async (_opts: unknown, cmd: Command) => {
      const v = await client(cmd).audit.verify();
      printText(
        cmd,
        { data: v },
        v.ok
          ? `ok: ${v.checked} events checked, head ${v.head_seq} ${v.head_hash}`
          : `broken at seq ${v.broken_at} (${v.checked} checked), head ${v.head_seq} ${v.head_hash}`,
      );
      if (!v.ok) process.exitCode = 1;
    });
  audit
    .command('settings')
    .description('show which data events the log records; --action-create on|off changes it (admin scope)')
    .option('--action-create <on|off>', "record each action's create (action.create; on by default)", onOff)
    .action(async (opts: { actionCreate?: boolean }, cmd: Command) => {
      const api = client(cmd).audit;
      printSettings(
        cmd,
        opts.actionCreate === undefined
          ? await api.settings()
          : await api.updateSettings({ action_create: opts.actionCreate }),
      );
    });
}
