import type {
  CommentPolicy,
  ConfirmationMode,
  GateField,
  GateInput,
  OnTimeout,
  QuietHours,
} from '@sched/contract';
import { agentParts } from './fields.js';
import type { Plan } from '../quota/plans.js';
import { planLimits } from '../quota/plans.js';
import { parseDuration } from '../schedule/duration.js';
import type { ChannelName } from './messages.js';
import { quorumRefusal } from './quorum.js';
import { recipientMatches } from './recipient-match.js';

/** An approval gate, validated; recipients are resolved later against the account's directory. */
export interface PreparedGate {
  message: string;
  recipients: string[];
  channels: ChannelName[] | undefined;
  buttons: [string, string];
  confirmation_mode: ConfirmationMode;
  min_approvals: number | null;
  required_recipients: string[];
  exclude_requester: string | null;
  slack_responders: string[];
  comment: CommentPolicy;
  reminders: { every: string; every_ms: number; max: number; channels: ChannelName[] | null } | null;
  max_snoozes: number;
  timeout: string;
  timeoutMs: number;
  on_timeout: OnTimeout;
  escalation: { contacts: string[]; after_hours: number } | null;
  /** When its messages are held (checked against the calendars by prepareAction); null: any time. */
  quiet_hours: (QuietHours & { timezone: string }) | null;
  attachments: { name: string; content_type: string; content: Buffer | null; url: string | null }[];
  fields: GateField[];
  grant: { key: string; max_ttl: string; max_ttl_ms: number } | null;
}

/** Limits of attachments: count is checked by the schema; the decoded total is checked here. */
const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
const DEFAULT_BUTTONS: [string, string] = ['Approve', 'Decline'];

/** Validates a gate's own fields (timeout, recipients count, escalation forms, attachments) against the plan. */
export function prepareGate(
  g: GateInput,
  plan: Plan,
  fail: (field: string, message: string) => void,
): PreparedGate | null {
  const timeoutMs = parseDuration(g.timeout);
  if (timeoutMs === null) fail('gate.timeout', 'is not a valid duration');
  if (g.recipients.length > planLimits(plan).maxRecipients) {
    fail('gate.recipients', `the ${plan} plan allows at most ${planLimits(plan).maxRecipients} recipients`);
  }
  const flat = g.escalation_contacts ?? g.escalation_after_hours;
  if (g.escalation && flat !== undefined)
    fail('gate.escalation', 'give escalation or escalation_contacts/escalation_after_hours, not both');
  let escalation: PreparedGate['escalation'] = g.escalation ?? null;
  if (!escalation && flat !== undefined) {
    if (!g.escalation_contacts) fail('gate.escalation_contacts', 'is required with escalation_after_hours');
    if (g.escalation_after_hours === undefined)
      fail('gate.escalation_after_hours', 'is required with escalation_contacts');
    if (g.escalation_contacts && g.escalation_after_hours !== undefined) {
      escalation = { contacts: g.escalation_contacts, after_hours: g.escalation_after_hours };
    }
  }
  let total = 0;
  const attachments = (g.attachments ?? []).map((a, i) => {
    let content: Buffer | null = null;
    if (a.content !== undefined) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.content.replace(/\s/g, '')))
        fail(`gate.attachments.${i}.content`, 'must be base64');
      content = Buffer.from(a.content, 'base64');
      total += content.length;
    }
    return { name: a.name, content_type: a.content_type, content, url: a.url ?? null };
  });
  if (total > MAX_ATTACHMENT_BYTES)
    fail('gate.attachments', `attachments may hold at most ${MAX_ATTACHMENT_BYTES} bytes in all`);
  return {
    message: g.message,
    recipients: g.recipients,
    channels: g.channels ? [...new Set(g.channels)] : undefined,
    buttons: (g.buttons as [string, string] | undefined) ?? DEFAULT_BUTTONS,
    confirmation_mode: g.confirmation_mode,
    ...quorumOf(g, fail),
    slack_responders: [...new Set(g.slack_responders ?? [])],
    comment: g.comment,
    reminders: remindersOf(g, fail),
    max_snoozes: g.max_snoozes,
    timeout: g.timeout,
    timeoutMs: timeoutMs ?? 0,
    on_timeout: g.on_timeout,
    escalation,
    quiet_hours: null,
    attachments,
    ...agentParts(g, fail),
  };
}

/**
 * The quorum settings of a gate, checked against its recipients: `min_approvals` 2..recipients (quorum only),
 * `required_recipients` among the recipients, and `exclude_requester` never the only path to the quorum.
 */
function quorumOf(
  g: GateInput,
  fail: (field: string, message: string) => void,
): Pick<PreparedGate, 'min_approvals' | 'required_recipients' | 'exclude_requester'> {
  const quorum = g.confirmation_mode === 'quorum';
  const min = g.min_approvals ?? null;
  if (quorum && min === null) fail('gate.min_approvals', 'is required with confirmation_mode quorum');
  if (!quorum && min !== null) fail('gate.min_approvals', 'applies only to confirmation_mode quorum');
  if (min !== null && min > g.recipients.length)
    fail('gate.min_approvals', `must be at most the number of recipients (${g.recipients.length})`);
  const required = [...new Set(g.required_recipients ?? [])];
  required.forEach((r, i) => {
    if (!g.recipients.some((x) => recipientMatches(x, r)))
      fail(`gate.required_recipients.${i}`, `'${r}' is not one of gate.recipients`);
  });
  const requester = g.exclude_requester ?? null;
  if (quorum && min !== null && requester !== null) {
    const excluded = g.recipients.filter((x) => recipientMatches(x, requester)).length;
    const refusal = quorumRefusal(
      min,
      g.recipients.length,
      excluded,
      required.some((r) => recipientMatches(requester, r)),
    );
    if (refusal) fail('gate.exclude_requester', refusal);
  }
  return { min_approvals: quorum ? min : null, required_recipients: required, exclude_requester: requester };
}

/** `gate.reminders` with its interval read (unscaled ms). */
function remindersOf(
  g: GateInput,
  fail: (field: string, message: string) => void,
): PreparedGate['reminders'] {
  if (!g.reminders) return null;
  const everyMs = parseDuration(g.reminders.every);
  if (everyMs === null || everyMs <= 0) {
    fail('gate.reminders.every', 'is not a valid duration');
    return null;
  }
  return {
    every: g.reminders.every,
    every_ms: everyMs,
    max: g.reminders.max,
    channels: g.reminders.channels ? [...new Set(g.reminders.channels)] : null,
  };
}
