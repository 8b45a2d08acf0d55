import { apiContract as contract, type ContactCreate, type ContactUpdate } from '@sched/contract';
import { initClient } from '@ts-rest/core';
import { actionsApi, coordinationKeys, quotaApi, schedulesApi } from './actions.js';
import { bulkOperationsApi } from './bulk-operations.js';
import { destinationsApi } from './destinations.js';
import { approvalsApi, channelsApi, type RespondInput, respond, teamMembersApi } from './approvals.js';
import { chainsApi } from './chains.js';
import { templatesApi, trigger } from './templates.js';
import { fetchApi } from './transport.js';
import { domainsApi } from './domains.js';
import { unwrap } from './unwrap.js';

export { unwrap } from './unwrap.js';

export interface ClientOptions {
  /** The service root, e.g. `http://localhost:8080` (a trailing `/v1` is accepted too). */
  baseUrl: string;
  /**
   * The API key, sent as `Authorization: Bearer`. Leave it out in a page of the service's own origin (the
   * console): the browser's session cookie authenticates instead, and writes need the session's CSRF token in
   * `headers` (`{ 'x-sched-csrf': token }`; docs/console.md).
   */
  apiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export function createRawClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return initClient(contract, {
    baseUrl,
    baseHeaders: {
      ...(options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {}),
      ...options.headers,
    },
    throwOnUnknownStatus: false,
    validateResponse: false,
    api: fetchApi(baseUrl),
  });
}

/** The sched API client: one method per endpoint, returning the resource, throwing `SchedApiError` otherwise. */
export function createClient(options: ClientOptions) {
  const raw = createRawClient(options);
  const actions = actionsApi(raw);
  return {
    raw,
    contacts: {
      list: async () => unwrap(await raw.contacts.list(), 200).data,
      create: async (body: ContactCreate) => unwrap(await raw.contacts.create({ body }), 201).data,
      get: async (id: string) => unwrap(await raw.contacts.get({ params: { id } }), 200).data,
      update: async (id: string, body: ContactUpdate) =>
        unwrap(await raw.contacts.update({ params: { id }, body }), 200).data,
      delete: async (id: string): Promise<void> => {
        unwrap(await raw.contacts.delete({ params: { id } }), 204);
      },
    },
    actions,
    /** Chains of HTTP calls, approval gates and delays (Business plan). */
    chains: chainsApi(raw),
    /** Approval actions from camelCase options (`buildApprovalBody`); read them back with `actions.get`. */
    approvals: approvalsApi(actions),
    /** Slack and Teams destinations for `channel:<id>` recipients (Business plan). */
    channels: channelsApi(raw),
    /** People whose ids can be gate recipients. */
    teamMembers: teamMembersApi(raw),
    quota: quotaApi(raw),
    /** Cancel, retry, replay, pause or resume many actions at once, with a dry run first. */
    bulkOperations: bulkOperationsApi(raw),
    /** Destinations by host: flow and circuit settings, pause and resume, recovery of what failed. */
    destinations: destinationsApi(raw),
    /** When a schedule runs (occurrences, DST gaps and folds), without creating anything. */
    schedules: schedulesApi(raw),
    /** Actions per state and the last 24 hours of deliveries (`GET /v1/stats`): the console's overview. */
    stats: async () => unwrap(await raw.actions.stats(), 200).data,
    /** Destination domains: thresholds per hostname and their verification by TXT record or file. */
    domains: domainsApi(raw),
    /** Every dedup key used in the account (`GET /v1/coordination-keys`). */
    coordinationKeys: () => coordinationKeys(raw),
    /** Answers through a response link; the same as the standalone `respond` (the API key is not sent). */
    respond: (link: string, input: RespondInput) => respond(link, input),
    /** Saved actions and chains with placeholders, fired through their public trigger URLs. */
    templates: templatesApi(raw),
    /** Fires a trigger URL; the same as the standalone `trigger` (the API key is not sent). */
    trigger: (url: string, values?: Record<string, unknown>, schedule?: Schedule) =>
      trigger(url, values, schedule),
  };
}

export type SchedClient = ReturnType<typeof createClient>;
type Schedule = import('./types.js').Schedule;
