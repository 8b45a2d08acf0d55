import type { DomainCheck, DomainDetail, DomainVerification } from '@sched/sdk';
import type { Command } from 'commander';
import { client, formatFields, print, printText } from '../runtime.js';

const COLUMNS = ['domain', 'verified', 'method', 'verified_at'];

/** What to publish, in the words of docs/domains.md. */
function describeVerification(v: Pick<DomainVerification, 'domain' | 'verification_methods'>): string {
  const m = v.verification_methods;
  return [
    `Prove ${v.domain} with either:`,
    `  DNS: a TXT record on ${m.dns.name} with the value`,
    `       ${m.dns.value}`,
    `  file: ${m.file.url} containing exactly`,
    `       ${m.file.content}`,
    `then run: sched domains check ${v.domain}`,
  ].join('\n');
}

function describeCheck(c: DomainCheck): string {
  if (c.verified) return `${c.domain} is verified (${c.method}, ${c.verified_at})`;
  return [`${c.domain} is not verified yet`, `  dns:  ${c.errors.dns}`, `  file: ${c.errors.file}`].join(
    '\n',
  );
}

function describeDomain(d: DomainDetail): string {
  const lines = formatFields([
    ['domain', d.domain],
    ['status', d.status],
    ['method', d.method],
    ['verified_at', d.verified_at],
    ['today', `${d.usage.today} (limit ${d.usage.day_limit} while unverified)`],
    ['this_month', `${d.usage.this_month} (limit ${d.usage.month_limit} while unverified)`],
    ['last_check_at', d.last_check_at],
    ['next_check_at', d.next_check_at],
  ]);
  const errors = d.last_errors ? `\nlast check: dns: ${d.last_errors.dns}; file: ${d.last_errors.file}` : '';
  const how =
    d.status === 'pending' && d.verification_methods
      ? `\n${describeVerification({ domain: d.domain, verification_methods: d.verification_methods })}`
      : '';
  return `${lines}${errors}${how}`;
}

export function configureDomainsCommands(program: Command): void {
  const domains = program
    .command('domains')
    .description(
      'destination domains: verify a hostname to send it more than 10 actions a day or 100 a month',
    );
  domains
    .command('list')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.list();
      print(cmd, { data }, { rows: data, columns: COLUMNS });
    });
  domains
    .command('verify <domain>')
    .description('start verification: prints the TXT record and the file that prove the domain')
    .option('--json', 'print JSON')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.verify(domain);
      printText(cmd, { data }, describeVerification(data));
    });
  domains
    .command('check <domain>')
    .description('try both methods now')
    .option('--json', 'print JSON')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.check(domain);
      printText(cmd, { data }, describeCheck(data));
    });
  domains
    .command('get <domain>')
    .description('status, usage and instructions')
    .option('--json', 'print JSON')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).domains.get(domain);
      printText(cmd, { data }, describeDomain(data));
    });
  domains
    .command('remove <domain>')
    .description('remove the verification: the thresholds apply again')
    .option('--json', 'print JSON')
    .action(async (domain: string, _o: unknown, cmd: Command) => {
      await client(cmd).domains.remove(domain);
      if (cmd.optsWithGlobals().json) print(cmd, { removed: domain });
      else process.stdout.write(`removed ${domain}\n`);
    });
}
