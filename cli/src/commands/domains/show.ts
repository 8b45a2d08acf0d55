import type { DomainCheck, DomainDetail, DomainVerification } from '@sched/sdk';
import { formatFields } from '../../runtime.js';

export const COLUMNS = ['domain', 'verified', 'method', 'verified_at'];

/** What to publish, in the words of docs/domains.md. */
export function describeVerification(v: Pick<DomainVerification, 'domain' | 'verification_methods'>): string {
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

export function describeCheck(c: DomainCheck): string {
  if (c.verified) return `${c.domain} is verified (${c.method}, ${c.verified_at})`;
  return [`${c.domain} is not verified yet`, `  dns:  ${c.errors.dns}`, `  file: ${c.errors.file}`].join(
    '\n',
  );
}

export function describeDomain(d: DomainDetail): string {
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
