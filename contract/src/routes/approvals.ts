import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  NotificationChannel,
  NotificationChannelCreate,
  NotificationChannelUpdate,
  ApprovalSummary,
  GateChannel,
  ReassignBody,
  ResponseInput,
  ResponseResult,
  TeamMember,
  TeamMemberCreate,
  TeamMemberUpdate,
} from '../schemas/approval.js';
import { Action } from '../schemas/action.js';
import {
  authErrors,
  ErrorBody,
  paginated,
  paginationQuery,
  single,
  Uuid,
  ValidationErrorBody,
} from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

/** Slack and Teams destinations, referenced by gate recipients as `channel:<id>` (an extension of the spec). */
export const channelsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/channels',
    responses: { 200: z.object({ data: z.array(NotificationChannel) }), ...authErrors },
    summary: 'List notification channels',
    description: 'Slack and Teams channels of the account; webhook URLs are shown masked.',
  },
  create: {
    method: 'POST',
    path: '/v1/channels',
    body: NotificationChannelCreate,
    responses: { 201: single(NotificationChannel), ...authErrors },
    summary: 'Add a Slack or Teams channel (incoming webhook URL)',
    description: 'Slack and Teams are Business-plan features: other plans get 403.',
  },
  get: {
    method: 'GET',
    path: '/v1/channels/:id',
    pathParams: idParams,
    responses: { 200: single(NotificationChannel), 404: ErrorBody, ...authErrors },
    summary: 'Get a notification channel',
    description: '404 for an unknown id or one of another account.',
  },
  update: {
    method: 'PUT',
    path: '/v1/channels/:id',
    pathParams: idParams,
    body: NotificationChannelUpdate,
    responses: { 200: single(NotificationChannel), 404: ErrorBody, ...authErrors },
    summary: 'Update a notification channel',
    description: 'Only the supplied fields change; a new webhook URL is checked like at creation.',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/channels/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Delete a notification channel',
    description: 'Approvals that named it keep their sent messages; new ones can no longer use it.',
  },
});

/** People of the account whose ids can be gate recipients (email, SMS, Web Push); an extension of the spec. */
export const teamMembersContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/team-members',
    responses: { 200: z.object({ data: z.array(TeamMember) }), ...authErrors },
    summary: 'List team members',
    description: 'Team members of the account, who approvals can address by id.',
  },
  create: {
    method: 'POST',
    path: '/v1/team-members',
    body: TeamMemberCreate,
    responses: { 201: single(TeamMember), ...authErrors },
    summary: 'Add a team member',
    description: 'At least one of `email`, `phone` or a push subscription, so a message can reach them.',
  },
  get: {
    method: 'GET',
    path: '/v1/team-members/:id',
    pathParams: idParams,
    responses: { 200: single(TeamMember), 404: ErrorBody, ...authErrors },
    summary: 'Get a team member',
    description: '404 for an unknown id or one of another account.',
  },
  update: {
    method: 'PUT',
    path: '/v1/team-members/:id',
    pathParams: idParams,
    body: TeamMemberUpdate,
    responses: { 200: single(TeamMember), 404: ErrorBody, ...authErrors },
    summary: 'Update a team member',
    description: 'Only supplied fields change; `push_subscriptions` replaces the list.',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/team-members/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Remove a team member',
    description: 'Permanent. Approvals already sent keep their recipients.',
  },
});

const tokenParams = z.object({ token: z.string().min(1).max(200) });
/** A response link counts per client IP first (random tokens cost lookups), then per link. */
const linkMeta = { auth: 'none', rateLimits: ['reminderResponsePerIp', 'reminderResponse'] } as const;

/**
 * The login-free response link of one recipient, `{public_url}/r/<token>`. `GET` renders the page (HTML) and never
 * changes anything; `POST` records the answer, as a form or as JSON, and answers HTML or JSON by `Accept`.
 */
export const responsesContract = c.router({
  page: {
    method: 'GET',
    path: '/r/:token',
    pathParams: tokenParams,
    responses: {
      200: c.otherResponse({ contentType: 'text/html', body: z.string() }),
      404: c.otherResponse({ contentType: 'text/html', body: z.string() }),
      410: c.otherResponse({ contentType: 'text/html', body: z.string() }),
      429: c.otherResponse({ contentType: 'text/html', body: z.string() }),
    },
    metadata: linkMeta,
    summary: 'The response page of a recipient',
    description:
      'An HTML page with the request, its attachments and the confirm / decline / snooze form. Never changes anything (link previews and mail scanners are safe); 404 for an unknown token, 410 once the approval is settled.',
  },
  respond: {
    method: 'POST',
    path: '/r/:token',
    pathParams: tokenParams,
    body: ResponseInput,
    responses: {
      200: ResponseResult,
      403: ErrorBody,
      404: ErrorBody,
      409: ErrorBody,
      410: ErrorBody,
      422: ValidationErrorBody,
      429: ErrorBody,
    },
    metadata: linkMeta,
    summary: 'Answer an approval: confirm, decline or snooze',
    description:
      'Also accepts `application/x-www-form-urlencoded` (the page form) and then answers HTML. 410 once the gate has timed out, ' +
      'the action is finished, or this recipient has already answered. 409 while a round of messages is being sent: answer ' +
      'again a moment later. 403 when the requester answers a gate that excludes them (`gate.exclude_requester`). 10 requests a minute per link and 60 a minute per client IP.',
  },
});

/** Approvals in flight: what is pending, a reminder now, a recipient handed over to someone else. */
export const remindersContract = c.router({
  pending: {
    method: 'GET',
    path: '/v1/approvals',
    query: z.object({
      status: z.string().max(32).optional().meta({ description: 'Default `awaiting_response`.' }),
      recipient: z.string().max(320).optional().meta({ description: 'An address or `contact:<id>`.' }),
      overdue: z
        .enum(['true', 'false'])
        .optional()
        .transform((v) => (v === undefined ? undefined : v === 'true'))
        .meta({ description: '`true`: only those past a reminder or within an hour of their timeout.' }),
      channel: GateChannel.optional(),
      ...paginationQuery(25),
    }),
    responses: { 200: paginated(ApprovalSummary), ...authErrors },
    summary: 'List approvals and who they wait on',
    description:
      "Approval actions with each recipient's state, nearest timeout first (not yet sent last). Filters: `status` (default `awaiting_response`), `recipient`, `overdue=true`, `channel`.",
  },
  remind: {
    method: 'POST',
    path: '/v1/actions/:id/remind',
    pathParams: z.object({ id: Uuid }),
    body: c.noBody(),
    responses: { 200: single(Action), 404: ErrorBody, 409: ErrorBody, ...authErrors },
    summary: 'Send a reminder now',
    description:
      'Re-sends the approval message at once to every recipient who has not answered (new links; earlier ones keep working), recorded in the timeline (`sent`) and the audit log (`approval.reminder`). Does not count against `gate.reminders.max`. 409 when the action is not `awaiting_response` or nobody is pending.',
  },
  reassign: {
    method: 'POST',
    path: '/v1/actions/:id/recipients/:recipient_id/reassign',
    pathParams: z.object({ id: Uuid, recipient_id: Uuid }),
    body: ReassignBody,
    responses: {
      200: single(Action),
      404: ErrorBody,
      409: ErrorBody,
      ...authErrors,
    },
    summary: 'Hand a recipient over to someone else',
    description:
      "The recipient's links stop working (their page says the request was reassigned) and its status becomes `reassigned`; " +
      'the new recipient (`reassigned_from` names the old one) takes its place in the gate, required if it was, and gets its ' +
      'own link at once when the request has gone out. Recorded on the timeline (`reassigned`) and in the audit log ' +
      "(`approval.reassigned`). 404 for another account's action or a recipient not of this action; 409 once the recipient " +
      'has confirmed or declined (or was reassigned already), for an action that is not an approval, or a gate that is finished, ' +
      'paused or sending right now; 422 when `to` cannot be resolved, is already a recipient, or is the excluded requester.',
  },
});
