import type { createRawClient } from './client.js';
import { unwrap } from './unwrap.js';

type RawClient = ReturnType<typeof createRawClient>;

/**
 * Destination domains (`/v1/domains`): past 10 actions a day or 100 a month to one unverified hostname, creates to it
 * are refused with 422 on `request.url`. `verify` hands out the TXT record and file; `check` tries both now.
 */
export function domainsApi(raw: RawClient) {
  const params = (domain: string) => ({ params: { domain } });
  return {
    list: async () => unwrap(await raw.domains.list(), 200).data,
    get: async (domain: string) => unwrap(await raw.domains.get(params(domain)), 200).data,
    verify: async (domain: string) => unwrap(await raw.domains.verify(params(domain)), 200).data,
    check: async (domain: string) => unwrap(await raw.domains.check(params(domain)), 200).data,
    remove: async (domain: string) => {
      unwrap(await raw.domains.remove(params(domain)), 204);
    },
  };
}
