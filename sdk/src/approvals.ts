import type {
  Action,
  ActionCreateBody,
  NotificationChannel,
  ResponseResult,
  ResponseInput,
  TeamMember,
} from '@sched/contract';
import type { z } from 'zod';
import type { ActionsApi, CreateActionResult } from './actions.js';
import { callArgs, type RawClient } from './raw.js';
import { routes } from './routes.js';
import { standaloneSend } from './templates.js';
import type { CallOptions, Send } from './transport.js';
import type {
  Decision,
  GateChannel,
  GateInput,
  HttpRequestInput,
  NotificationChannelCreate,
  NotificationChannelUpdate,
  Schedule,
  TeamMemberCreate,
  TeamMemberUpdate,
} from './types.js';
import { unwrap } from './unwrap.js';

/** A file for `ApprovalInput.attachments`: bytes are base64-encoded for you; or a `url`, shown but never fetched. */
export interface ApprovalAttachment {
  name: string;
  /** Default `application/octet-stream`. */
  contentType?: string;
  /** Raw bytes, or a string that is already base64. */
  content?: Uint8Array | string;
  url?: string;
}

/**
 * What `approvals.create` takes: the fields of an approval action in camelCase, turned into the `POST /v1/actions`
 * body by `buildApprovalBody`. Give when: `schedule` (`{ wait: '1h' }`, `{ preset: 'tomorrow' }`) or `scheduledFor`.
 * Every value is checked by the server, which answers 422 naming the field.
 */
export interface ApprovalInput {
  /**
   * Who is asked: emails, E.164 phones, `contact:<id>:email|phone`, `channel:<uuid>`, `slack:<member id>` (Slack
   * app mode), team member ids.
   */
  to: string | string[];
  /** The question, at most 5000 characters. */
  message: string;
  schedule?: Schedule;
  /** An exact time; a string without an offset is UTC. */
  scheduledFor?: string | Date;
  /** Default: what the recipients need (`email` for addresses, `sms` for phones). */
  channels?: GateChannel[];
  /** How long the links answer, e.g. `4h`, `7d` (default `7d`). */
  timeout?: string;
  /** What a timeout does: `cancel` (default), `expire` or `approve`. */
  onTimeout?: GateInput['on_timeout'];
  /**
   * `first_response` (default) completes on the first answer; `all_required` waits for everyone; `quorum` needs
   * `minApprovals` confirmations, every `requiredRecipients` among them.
   */
  confirmationMode?: GateInput['confirmation_mode'];
  /** Quorum: how many confirmations approve (2 to the number of recipients). */
  minApprovals?: number;
  /** Quorum: recipients who must confirm whatever the count (addresses or `contact:` ids). */
  requiredRecipients?: string[];
  /** The requester's address: their answer never counts. */
  excludeRequester?: string;
  /** Slack app mode: the member ids who may answer a Slack channel's buttons (default: anyone in the channel). */
  slackResponders?: string[];
  /** Re-sends to who has not answered every `every`, at most `max` times. */
  reminders?: GateInput['reminders'];
  /** When recipients must comment: `optional` (default), `required_on_decline`, `required`. */
  commentPolicy?: GateInput['comment'];
  /** 0-10, default 5; 0 hides snooze. */
  maxSnoozes?: number;
  /** Confirm and decline labels. */
  buttons?: [string, string];
  /** Who is asked too when nobody has answered after `afterHours` (at least 0.5); a bare contact is an email. */
  escalation?: { contacts: string | string[]; afterHours: number };
  attachments?: ApprovalAttachment[];
  /** A typed answer people may change before confirming (`gate.fields`); read it in `recipients[].values`. */
  fields?: GateInput['fields'];
  /** Lets the approver allow the same `key` for up to `max_ttl` (`gate.grant`). */
  grant?: GateInput['grant'];
  /** The HTTP request run once the approval is confirmed, through the webhook delivery engine. */
  request?: HttpRequestInput;
  /** Signs the post-approval request (16+ printable ASCII characters). */
  webhookSecret?: string;
  name?: string;
  description?: string;
  timezone?: string;
  idempotencyKey?: string;
  /** Receives `reminder.responded`, `action.executed`, `action.failed`, `action.expired`... */
  callbackUrl?: string;
  dedupKeys?: string[];
  coordination?: ActionCreateBody['coordination'];
}

/** Turns an `ApprovalInput` into the `POST /v1/actions` body (`mode: 'approval'`); checks nothing itself. */
export function buildApprovalBody(input: ApprovalInput): ActionCreateBody {
  const gate: GateInput = {
    message: input.message,
    recipients: typeof input.to === 'string' ? [input.to] : [...input.to],
  };
  if (input.channels !== undefined) gate.channels = input.channels;
  if (input.timeout !== undefined) gate.timeout = input.timeout;
  if (input.onTimeout !== undefined) gate.on_timeout = input.onTimeout;
  if (input.confirmationMode !== undefined) gate.confirmation_mode = input.confirmationMode;
  if (input.minApprovals !== undefined) gate.min_approvals = input.minApprovals;
  if (input.requiredRecipients !== undefined) gate.required_recipients = [...input.requiredRecipients];
  if (input.excludeRequester !== undefined) gate.exclude_requester = input.excludeRequester;
  if (input.slackResponders !== undefined) gate.slack_responders = [...input.slackResponders];
  if (input.commentPolicy !== undefined) gate.comment = input.commentPolicy;
  if (input.reminders !== undefined) gate.reminders = input.reminders;
  if (input.maxSnoozes !== undefined) gate.max_snoozes = input.maxSnoozes;
  if (input.buttons !== undefined) gate.buttons = [...input.buttons];
  if (input.fields !== undefined) gate.fields = input.fields;
  if (input.grant !== undefined) gate.grant = input.grant;
  if (input.escalation !== undefined) {
    const { contacts, afterHours } = input.escalation;
    gate.escalation = {
      contacts: typeof contacts === 'string' ? [contacts] : [...contacts],
      after_hours: afterHours,
    };
  }
  if (input.attachments !== undefined) {
    gate.attachments = input.attachments.map((a) => ({
      name: a.name,
      ...(a.contentType !== undefined ? { content_type: a.contentType } : {}),
      ...(a.content !== undefined
        ? { content: typeof a.content === 'string' ? a.content : toBase64(a.content) }
        : {}),
      ...(a.url !== undefined ? { url: a.url } : {}),
    }));
  }
  const body: ActionCreateBody = { mode: 'approval', gate };
  if (input.schedule !== undefined) body.schedule = input.schedule;
  if (input.scheduledFor !== undefined)
    body.scheduled_for =
      input.scheduledFor instanceof Date ? input.scheduledFor.toISOString() : input.scheduledFor;
  if (input.request !== undefined) body.request = input.request;
  if (input.webhookSecret !== undefined) body.webhook_secret = input.webhookSecret;
  if (input.name !== undefined) body.name = input.name;
  if (input.description !== undefined) body.description = input.description;
  if (input.timezone !== undefined) body.timezone = input.timezone;
  if (input.idempotencyKey !== undefined) body.idempotency_key = input.idempotencyKey;
  if (input.callbackUrl !== undefined) body.callback_url = input.callbackUrl;
  if (input.dedupKeys !== undefined) body.dedup_keys = input.dedupKeys;
  if (input.coordination !== undefined) body.coordination = input.coordination;
  return body;
}

/** Base64 without Node's Buffer, so the SDK runs in browsers and edge runtimes too. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunks keep String.fromCharCode's argument list well under engine limits.
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export interface ApprovalsApi {
  /**
   * Schedules an approval action. Answers like `actions.create`: `skipped: true` when an idempotency key or
   * dedup rule pointed at a live action instead. The full action, with `recipients` and `reminder_events`,
   * comes from `actions.get(id)` (or `actions.wait(id)` for its outcome).
   */
  create(input: ApprovalInput, options?: CallOptions): Promise<CreateActionResult>;
  /** `create`, answering a handle whose `wait()` holds until the decision. */
  request(input: ApprovalInput, options?: CallOptions): Promise<ApprovalHandle>;
}

/** An approval asked for by `approvals.request`: its id, and a wait for the decision. */
export interface ApprovalHandle {
  id: string;
  /** The create's answer (`skipped: true` when an idempotency key pointed at a live approval). */
  created: CreateActionResult;
  /**
   * Holds until the gate is decided (`GET /v1/actions/{id}/wait?for=decision`, without polling), then answers the
   * action: its `status` (`executed` confirmed, `failed` declined, `expired`, `cancelled`) and `recipients[].values`.
   * Rejects with `SchedWaitTimeoutError` after `timeoutMs` (default 5 minutes; 0 waits for ever).
   */
  wait(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Action>;
}

export function approvalsApi(actions: ActionsApi): ApprovalsApi {
  const create: ApprovalsApi['create'] = (input, o) => actions.create(buildApprovalBody(input), o);
  return {
    create,
    request: async (input, o) => {
      const created = await create(input, o);
      const id = created.action.id;
      return { id, created, wait: (w = {}) => actions.wait(id, { ...w, for: 'decision' }) };
    },
  };
}

/** Slack and Teams destinations for `channel:<id>` recipients (`/v1/channels`; Business plan, else 403). */
export interface ChannelsApi {
  list(options?: CallOptions): Promise<NotificationChannel[]>;
  iterate(options?: CallOptions): AsyncGenerator<NotificationChannel, void, undefined>;
  create(body: NotificationChannelCreate, options?: CallOptions): Promise<NotificationChannel>;
  get(id: string, options?: CallOptions): Promise<NotificationChannel>;
  update(id: string, body: NotificationChannelUpdate, options?: CallOptions): Promise<NotificationChannel>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

export function channelsApi(raw: RawClient): ChannelsApi {
  const list = async (o?: CallOptions) => unwrap(await raw.channels.list(callArgs(o)), 200).data;
  return {
    list,
    async *iterate(o?: CallOptions) {
      yield* await list(o);
    },
    create: async (body, o) => unwrap(await raw.channels.create({ body, ...callArgs(o) }), 201).data,
    get: async (id, o) => unwrap(await raw.channels.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.channels.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.channels.delete({ params: { id }, ...callArgs(o) }), 204);
    },
  };
}

/** People of the account whose ids can be gate recipients (`/v1/team-members`). */
export interface TeamMembersApi {
  list(options?: CallOptions): Promise<TeamMember[]>;
  iterate(options?: CallOptions): AsyncGenerator<TeamMember, void, undefined>;
  create(body: TeamMemberCreate, options?: CallOptions): Promise<TeamMember>;
  get(id: string, options?: CallOptions): Promise<TeamMember>;
  update(id: string, body: TeamMemberUpdate, options?: CallOptions): Promise<TeamMember>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

export function teamMembersApi(raw: RawClient): TeamMembersApi {
  const list = async (o?: CallOptions) => unwrap(await raw.teamMembers.list(callArgs(o)), 200).data;
  return {
    list,
    async *iterate(o?: CallOptions) {
      yield* await list(o);
    },
    create: async (body, o) => unwrap(await raw.teamMembers.create({ body, ...callArgs(o) }), 201).data,
    get: async (id, o) => unwrap(await raw.teamMembers.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.teamMembers.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.teamMembers.delete({ params: { id }, ...callArgs(o) }), 204);
    },
  };
}

/** An answer to a response link. */
export interface RespondInput {
  decision: Decision;
  /** At most 500 characters, shown in the action's `recipients` and timeline. */
  comment?: string;
  /** With `decision: 'snooze'`: how long, e.g. `1h` (the server's default is 1h). */
  snoozeFor?: string;
}

/**
 * Answers an approval through a recipient's link `{public_url}/r/<token>`, as the response page would: no API key,
 * the link is the credential. Answers the recorded `ResponseResult`; throws `SchedApiError` with 410 once the link
 * is spent (answered, timed out, action finished), 404 for an unknown link, 422 for a bad value, 429 past 10
 * requests a minute.
 */
export async function respond(
  link: string,
  input: RespondInput,
  options: CallOptions & { send?: Send } = {},
): Promise<ResponseResult> {
  const at = link.lastIndexOf('/r/');
  const token = at < 0 ? '' : link.slice(at + 3);
  // The origin (and any path prefix of the public URL) only: the token is the recipient's credential.
  const baseUrl = at < 0 ? link : link.slice(0, at);
  if (!token || token.includes('/'))
    throw new TypeError('respond needs a response link ending in /r/<token>');
  const body: ResponseBody = { decision: input.decision };
  if (input.comment !== undefined) body.comment = input.comment;
  if (input.snoozeFor !== undefined) body.snooze_for = input.snoozeFor;
  const path = routes.responses.respond[1].replace(':token', encodeURIComponent(decodeURIComponent(token)));
  const send = options.send ?? standaloneSend();
  const res = await send(
    {
      url: `${baseUrl}${path}`,
      method: routes.responses.respond[0],
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(body),
      idempotent: false,
      signal: options.signal,
    },
    originOf(link),
  );
  return unwrap(res, 200) as ResponseResult;
}

type ResponseBody = z.input<typeof ResponseInput>;

function originOf(link: string): string {
  try {
    return new URL(link).origin;
  } catch {
    return 'the response link (not a URL)';
  }
}
