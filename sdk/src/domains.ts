import type { DomainCheck, DomainDetail, DomainSummary, DomainVerification } from '@sched/contract';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import { unwrap } from './unwrap.js';

/**
 * Destination domains (`/v1/domains`): past 10 actions a day or 100 a month to one unverified hostname, creates to it
 * are refused with 422 on `request.url`. `verify` hands out the TXT record and file; `check` tries both now.
 */
export interface DomainsApi {
  list(options?: CallOptions): Promise<DomainSummary[]>;
  get(domain: string, options?: CallOptions): Promise<DomainDetail>;
  verify(domain: string, options?: CallOptions): Promise<DomainVerification>;
  check(domain: string, options?: CallOptions): Promise<DomainCheck>;
  remove(domain: string, options?: CallOptions): Promise<void>;
}

export function domainsApi(raw: RawClient): DomainsApi {
  const params = (domain: string, o?: CallOptions) => ({ params: { domain }, ...callArgs(o) });
  return {
    list: async (o) => unwrap(await raw.domains.list(callArgs(o)), 200).data,
    get: async (domain, o) => unwrap(await raw.domains.get(params(domain, o)), 200).data,
    verify: async (domain, o) => unwrap(await raw.domains.verify(params(domain, o)), 200).data,
    check: async (domain, o) => unwrap(await raw.domains.check(params(domain, o)), 200).data,
    remove: async (domain, o) => {
      unwrap(await raw.domains.remove(params(domain, o)), 204);
    },
  };
}
