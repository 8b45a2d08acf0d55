import { grantsApi } from './grants.js';
import type {
  Action,
  ApprovalSummary,
  Contact,
  ContactCreate,
  ContactUpdate,
  GateChannelName,
  ReassignBody,
} from '@sched/contract';
import { actionsApi, coordinationKeys, quotaApi, schedulesApi } from './actions.js';
import { alertRulesApi } from './alert-rules.js';
import { apiKeysApi, signingSecretApi } from './api-keys.js';
import { bulkOperationsApi } from './bulk-operations.js';
import { calendarsApi } from './calendars.js';
import { destinationsApi } from './destinations.js';
import { approvalsApi, channelsApi, type RespondInput, respond, teamMembersApi } from './approvals.js';
import { auditApi } from './audit.js';
import { chainsApi } from './chains.js';
import { domainsApi } from './domains.js';
import { outboxApi } from './outbox.js';
import { templatesApi, trigger } from './templates.js';
import { type ConnectionOptions, callArgs, createRawClient, type RawClient } from './raw.js';
import { type CallOptions, createTransport, type TransportOptions } from './transport.js';
import type { ActionStats, PaginationMeta, ResponseResult, Schedule, TriggerAnswer } from './types.js';
import { unwrap } from './unwrap.js';

export { unwrap } from './unwrap.js';

export interface ClientOptions extends TransportOptions, ConnectionOptions {}

/** `GET /v1/approvals` filters (`overdue` as the query string carries it). */
export interface PendingApprovalsQuery {
  status?: string;
  recipient?: string;
  overdue?: 'true' | 'false';
  channel?: GateChannelName;
  page?: number;
  per_page?: number;
}

export interface PendingApprovalsPage {
  data: ApprovalSummary[];
  meta: PaginationMeta;
}

/** Contacts: reusable recipients (`contact:<id>:email`). The list is not paginated. */
export interface ContactsApi {
  list(options?: CallOptions): Promise<Contact[]>;
  /** The contacts one at a time: `for await (const c of sched.contacts.iterate())`. */
  iterate(options?: CallOptions): AsyncGenerator<Contact, void, undefined>;
  create(body: ContactCreate, options?: CallOptions): Promise<Contact>;
  get(id: string, options?: CallOptions): Promise<Contact>;
  update(id: string, body: ContactUpdate, options?: CallOptions): Promise<Contact>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

function contactsApi(raw: RawClient): ContactsApi {
  const list = async (o?: CallOptions) => unwrap(await raw.contacts.list(callArgs(o)), 200).data;
  return {
    list,
    async *iterate(o?: CallOptions) {
      yield* await list(o);
    },
    create: async (body, o) => unwrap(await raw.contacts.create({ body, ...callArgs(o) }), 201).data,
    get: async (id, o) => unwrap(await raw.contacts.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.contacts.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.contacts.delete({ params: { id }, ...callArgs(o) }), 204);
    },
  };
}

/**
 * The sched API client: one method per endpoint, returning the resource, throwing `SchedApiError` (with a stable
 * `code`) for an error answer and `SchedConnectionError` when no answer came. Every method takes an optional last
 * argument `{ signal }`. Calls time out after `timeoutMs` (30 s), and idempotent ones (GET, DELETE, creates with an
 * `idempotency_key`) are retried on network errors, 429 and 502/503/504 (see `TransportOptions`).
 */
export function createClient(options: ClientOptions) {
  const send = createTransport(options);
  const raw = createRawClient(options, send);
  const actions = actionsApi(raw, options.timeoutMs ?? 30_000);
  return {
    contacts: contactsApi(raw),
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
    /** Alert rules: failures, expiries, circuits and late deliveries told by email, SMS, chat or webhook. */
    alertRules: alertRulesApi(raw),
    /** Closed days for delivery windows and quiet hours: the owner's dates and a country's public holidays. */
    calendars: calendarsApi(raw),
    /** When a schedule runs (occurrences, DST gaps and folds), without creating anything. */
    schedules: schedulesApi(raw),
    /** Actions per state and the last 24 hours of deliveries (`GET /v1/stats`): the console's overview. */
    stats: async (o?: CallOptions): Promise<ActionStats> =>
      unwrap(await raw.actions.stats(callArgs(o)), 200).data,
    /** Destination domains: thresholds per hostname and their verification by TXT record or file. */
    domains: domainsApi(raw),
    /** `GET /v1/approvals`: approvals and who they wait on, nearest timeout first (a page). */
    pendingApprovals: async (query: PendingApprovalsQuery = {}): Promise<PendingApprovalsPage> =>
      unwrap(await raw.reminders.pending({ query }), 200) as PendingApprovalsPage,
    /** `POST /v1/actions/{id}/remind`: re-sends a waiting approval to who has not answered; answers the action. */
    remind: async (id: string): Promise<Action> =>
      unwrap(await raw.reminders.remind({ params: { id } }), 200).data as Action,
    /**
     * `POST /v1/actions/{id}/recipients/{recipientId}/reassign`: hands a recipient who has not answered over to `to`
     * (an address, phone, `contact:<id>:email|phone`, `channel:<id>` or team member id); its links stop working and
     * the new recipient gets its own. Answers the action; 409 once that recipient has answered.
     */
    reassign: async (id: string, recipientId: string, body: ReassignBody, o?: CallOptions): Promise<Action> =>
      unwrap(
        await raw.reminders.reassign({ params: { id, recipient_id: recipientId }, body, ...callArgs(o) }),
        200,
      ).data as Action,
    /** Standing grants approvers gave (`gate.grant`): list and revoke. */
    grants: grantsApi(raw),
    /** A development server's outbox: messages kept because their channel is not configured (`GET /v1/outbox`). */
    outbox: outboxApi(raw),
    /** The audit log: list, verify the hash chain, export (docs/audit.md). */
    audit: auditApi(raw, options),
    /** The account's API keys (`/v1/api-keys`): needs a key with the `admin` scope. */
    keys: apiKeysApi(raw),
    /** The account's signing secret (`/v1/signing-secret`): what actions and chains without their own are signed with. */
    signingSecret: signingSecretApi(raw),
    /** Every dedup key used in the account (`GET /v1/coordination-keys`). */
    coordinationKeys: (o?: CallOptions): Promise<string[]> => coordinationKeys(raw, o),
    /** Answers through a response link; the same as the standalone `respond` (the API key is not sent). */
    respond: (link: string, input: RespondInput, o?: CallOptions): Promise<ResponseResult> =>
      respond(link, input, { ...o, send }),
    /** Saved actions and chains with placeholders, fired through their public trigger URLs. */
    templates: templatesApi(raw),
    /** Fires a trigger URL; the same as the standalone `trigger` (the API key is not sent). */
    trigger: (
      url: string,
      values?: Record<string, unknown>,
      schedule?: Schedule,
      o?: CallOptions,
    ): Promise<TriggerAnswer> => trigger(url, values, schedule, { ...o, send }),
  };
}

export type SchedClient = ReturnType<typeof createClient>;
