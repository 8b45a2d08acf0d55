import type { PrivateAccess } from '../domain/destinations/policy.js';
import { Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { VerificationProbes } from '../app/ports.js';
import { fileProves, txtProves, verificationFileUrl, verificationRecord } from '../domain/domains/rules.js';
import { createOutboundClient, type OutboundClient } from './http-client.js';

/** The verification file is one short line; anything longer is not it. */
const FILE_MAX_BYTES = 1024;
/** A check runs inside an API request: shorter than the 30 s of deliveries. */
const FILE_TIMEOUT_MS = 10_000;
const DNS_TIMEOUT_MS = 5_000;

/**
 * The two verification methods over the network: the TXT record through `node:dns` (the operator's resolvers, or
 * those of SCHED_DNS_SERVERS), the file through the SSRF-guarded client. When SCHED_DNS_SERVERS is set, the file's
 * host name is resolved through the same servers, so both methods see one view of DNS.
 */
export function createVerificationProbes(opts: {
  dnsServers: string[];
  allowPrivateDestinations: PrivateAccess;
}): VerificationProbes & { close(): Promise<void> } {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (opts.dnsServers.length > 0) resolver.setServers(opts.dnsServers);
  const client: OutboundClient = createOutboundClient({
    allowPrivate: opts.allowPrivateDestinations,
    userAgent: 'sched/0.1 (+domain-verification)',
    connections: 4,
    ...(opts.dnsServers.length > 0 ? { lookup: resolverLookup(resolver) } : {}),
  });
  return {
    async dns(domain, token) {
      let records: string[][];
      try {
        records = await resolver.resolveTxt(domain);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENODATA' || code === 'ENOTFOUND') return `no TXT record on ${domain}`;
        return `TXT lookup of ${domain} failed: ${code ?? (err as Error).message}`;
      }
      if (records.some((chunks) => txtProves(chunks, token))) return null;
      return `none of the ${records.length} TXT record(s) on ${domain} is "${verificationRecord(token)}"`;
    },
    async file(domain, token) {
      const url = verificationFileUrl(domain);
      const r = await client.send({
        url,
        method: 'GET',
        headers: { accept: 'text/plain' },
        timeoutMs: FILE_TIMEOUT_MS,
        maxResponseBytes: FILE_MAX_BYTES,
      });
      // One text for every transport failure: the reason (refused address, unknown name) would tell an outsider
      // which internal names exist.
      if (r.kind !== 'response') return `${url} could not be fetched`;
      if (r.status !== 200) return `${url} answered ${r.status}`;
      if (r.bodyTruncated) return `${url} is longer than ${FILE_MAX_BYTES} bytes`;
      return fileProves(r.bodyExcerpt, token)
        ? null
        : `${url} does not contain exactly "${verificationRecord(token)}"`;
    },
    close: () => client.close(),
  };
}

/** A `lookup` answering from the resolver's A and AAAA records. */
function resolverLookup(resolver: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    void (async () => {
      const settle = async (fn: () => Promise<string[]>) => {
        try {
          return await fn();
        } catch {
          return [];
        }
      };
      const family = options.family;
      const v4 = family === 6 ? [] : await settle(() => resolver.resolve4(hostname));
      const v6 = family === 4 ? [] : await settle(() => resolver.resolve6(hostname));
      const addresses: LookupAddress[] = [
        ...v4.map((address) => ({ address, family: 4 })),
        ...v6.map((address) => ({ address, family: 6 })),
      ];
      const first = addresses[0];
      if (first === undefined) {
        const err = Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' });
        callback(err, options.all ? [] : '', undefined);
      } else if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    })();
  };
}
