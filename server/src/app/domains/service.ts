import { randomBytes } from 'node:crypto';
import type { DomainCheck, DomainDetail, DomainSummary, DomainVerification } from '@sched/contract';
import {
  type DomainLimits,
  nextCheckAt,
  parseDomain,
  usagePeriods,
  type VerificationMethod,
  verificationFileUrl,
  verificationRecord,
} from '../../domain/domains/rules.js';
import {
  clearVerification,
  countPendingDomains,
  type DomainRow,
  findDomain,
  listDomains,
  recordCheck,
  startVerification,
} from '../../persistence/domains.js';
import { recordAudit } from '../audit.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Clock, DomainCheckQueue, Store, VerificationProbes } from '../ports.js';

/** Domains an account may have waiting for verification at once (each costs background lookups and fetches). */
export const MAX_PENDING_DOMAINS = 20;

/** Destination domains: listing, verification by TXT record or file, removal. */
export class DomainService {
  constructor(
    private readonly o: {
      store: Store;
      probes: VerificationProbes;
      checks: DomainCheckQueue;
      clock: Clock;
      limits: DomainLimits;
    },
  ) {}

  async list(accountId: string): Promise<DomainSummary[]> {
    return (await listDomains(this.o.store.sql, accountId)).map(summary);
  }

  async get(accountId: string, input: string): Promise<DomainDetail> {
    const row = await this.find(accountId, input);
    const now = usagePeriods(this.o.clock());
    const status = row.verified ? 'verified' : row.verification_token ? 'pending' : 'unverified';
    const errors = row.last_errors as Partial<Record<VerificationMethod, string>> | null;
    return {
      ...summary(row),
      status,
      verification_token: row.verification_token,
      verification_methods: row.verification_token ? methods(row.domain, row.verification_token) : null,
      usage: {
        today: row.day_start.getTime() === now.day.getTime() ? row.day_count : 0,
        this_month: row.month_start.getTime() === now.month.getTime() ? row.month_count : 0,
        day_limit: this.o.limits.perDay,
        month_limit: this.o.limits.perMonth,
      },
      last_check_at: row.last_check_at?.toISOString() ?? null,
      next_check_at: row.next_check_at?.toISOString() ?? null,
      last_errors: errors ? { dns: errors.dns ?? null, file: errors.file ?? null } : null,
    };
  }

  /** Hands out the token (the same one while the domain keeps it) and starts the background checks. */
  async verify(accountId: string, input: string): Promise<DomainVerification> {
    const domain = domainOf(input);
    const now = this.o.clock();
    const { day, month } = usagePeriods(now);
    const firstCheckAt = nextCheckAt(now, 0, now)!;
    const row = await this.o.store.transaction(async (db) => {
      // Each pending domain costs background lookups and fetches; an account keeps only so many waiting.
      if ((await countPendingDomains(db, accountId, domain)) >= MAX_PENDING_DOMAINS) {
        throw ValidationError.field(
          'domain',
          `at most ${MAX_PENDING_DOMAINS} domains may wait for verification at once; remove or verify one first`,
        );
      }
      const r = await startVerification(db, {
        accountId,
        domain,
        token: randomBytes(16).toString('hex'),
        now,
        day,
        month,
        firstCheckAt,
      });
      if (!r.verified) {
        await this.o.checks.schedule(db, accountId, domain, firstCheckAt);
        // The token is published in DNS anyway, but the log need not carry it: the domain says what started.
        await recordAudit(db, accountId, {
          action: 'domain.add',
          resource: { type: 'domain', id: domain },
          details: { domain },
        });
      }
      return r;
    });
    const token = row.verification_token!;
    return { domain, verification_token: token, verification_methods: methods(domain, token) };
  }

  /** Tries both methods now (the API's check); the background schedule is left as it is. */
  async check(accountId: string, input: string): Promise<DomainCheck> {
    const row = await this.find(accountId, input);
    if (row.verified) return { ...summary(row), errors: { dns: null, file: null } };
    if (!row.verification_token) {
      throw ValidationError.field(
        'domain',
        `verification of ${row.domain} has not started: POST /v1/domains/${row.domain}/verify first`,
      );
    }
    const { updated, errors } = await this.probe(row, row.next_check_at);
    return { ...summary(updated ?? row), errors };
  }

  /**
   * A background check (the `domain-check` job): runs when it is the domain's next planned check, then plans the
   * next one with backoff until 24 hours after verification started.
   */
  async backgroundCheck(accountId: string, domain: string): Promise<void> {
    const row = await findDomain(this.o.store.sql, accountId, domain);
    const now = this.o.clock();
    // A job superseded by a later verify, a removal or a verification has nothing to do.
    if (!row || row.verified || !row.verification_token || !row.next_check_at) return;
    if (row.next_check_at.getTime() > now.getTime() + 1000) return;
    const next = nextCheckAt(row.verification_started_at ?? now, row.check_attempts + 1, now);
    await this.probe(row, next);
  }

  async remove(accountId: string, input: string): Promise<void> {
    const domain = domainOf(input);
    await this.o.store.transaction(async (db) => {
      if (!(await clearVerification(db, accountId, domain, this.o.clock())))
        throw new NotFoundError('domain');
      await recordAudit(db, accountId, {
        action: 'domain.delete',
        resource: { type: 'domain', id: domain },
        details: { domain },
      });
    });
  }

  private async probe(row: DomainRow, next: Date | null) {
    const token = row.verification_token!;
    const [dns, file] = await Promise.all([
      this.o.probes.dns(row.domain, token),
      this.o.probes.file(row.domain, token),
    ]);
    const method: VerificationMethod | null = dns === null ? 'dns' : file === null ? 'file' : null;
    const errors = method ? { dns: null, file: null } : { dns, file };
    const updated = await this.o.store.transaction(async (db) => {
      const r = await recordCheck(db, {
        accountId: row.account_id,
        domain: row.domain,
        now: this.o.clock(),
        method,
        errors: method ? {} : { dns: dns!, file: file! },
        nextCheckAt: method ? null : next,
      });
      if (r && !method && next && next.getTime() !== row.next_check_at?.getTime()) {
        await this.o.checks.schedule(db, row.account_id, row.domain, next);
      }
      // Verified now: by the API's check (the key) or a background check (the service).
      if (r && method)
        await recordAudit(db, row.account_id, {
          action: 'domain.verify',
          resource: { type: 'domain', id: row.domain },
          details: { domain: row.domain, method },
        });
      return r;
    });
    return { updated, errors };
  }

  private async find(accountId: string, input: string): Promise<DomainRow> {
    const row = await findDomain(this.o.store.sql, accountId, domainOf(input));
    if (!row) throw new NotFoundError('domain');
    return row;
  }
}

function domainOf(input: string): string {
  const domain = parseDomain(input);
  if (!domain)
    throw ValidationError.field(
      'domain',
      'must be a host name such as api.example.com (IP addresses are not domains)',
    );
  return domain;
}

function summary(row: DomainRow): DomainSummary {
  return {
    domain: row.domain,
    verified: row.verified,
    verified_at: row.verified_at?.toISOString() ?? null,
    method: row.method,
  };
}

function methods(domain: string, token: string): DomainVerification['verification_methods'] {
  const record = verificationRecord(token);
  return {
    dns: { type: 'TXT', name: domain, value: record },
    file: { url: verificationFileUrl(domain), content: record },
  };
}
