import type { ChannelState } from '@sched/contract';
import { unsendableGate } from '../../domain/approval/channel-availability.js';
import { type ChannelName, isChatChannel } from '../../domain/approval/messages.js';
import type { PreparedGate } from '../../domain/approval/prepare.js';
import type { Plan } from '../../domain/quota/plans.js';
import { planLimits } from '../../domain/quota/plans.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import {
  type ResolvedRecipient,
  resolveEscalationContacts,
  resolveRecipients,
  sqlDirectory,
} from '../directory/recipients.js';
import { ValidationError } from '../errors.js';
import type { ApprovalGates } from '../ports.js';
import { assertChannelAllowances } from '../quota.js';
import { reopenGate } from './outcomes.js';

export type GateResolution =
  | { ok: true; stored: StoredGate; recipients: ResolvedRecipient[] }
  | { ok: false; errors: Record<string, string[]> };

/**
 * A prepared gate against the account's directory: its recipients and escalation contacts resolved, and the
 * gate column's starting state. Every unknown reference is reported at once (422 paths under `gate.`). One rule
 * for `POST /actions` and a chain's gated step.
 */
async function resolveGate(db: Sql, accountId: string, plan: Plan, g: PreparedGate): Promise<GateResolution> {
  const directory = sqlDirectory(db, accountId);
  const slackTeamsAllowed = planLimits(plan).slackTeams;
  const resolved = await resolveRecipients(g.recipients, {
    channels: g.channels,
    directory,
    field: 'gate.recipients',
    slackTeamsAllowed,
  });
  const errors: Record<string, string[]> = resolved.ok ? {} : { ...resolved.errors };
  if (g.channels && !slackTeamsAllowed && g.channels.some(isChatChannel)) {
    errors['gate.channels'] = ['Slack and Teams are Business-plan features'];
  }
  let escalation: StoredGate['escalation'] = null;
  if (g.escalation) {
    const esc = await resolveEscalationContacts(g.escalation.contacts, {
      directory,
      field: 'gate.escalation.contacts',
    });
    if (!esc.ok) Object.assign(errors, esc.errors);
    else
      escalation = {
        contacts: g.escalation.contacts,
        after_hours: g.escalation.after_hours,
        recipients: esc.recipients,
      };
  }
  if (!resolved.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    recipients: resolved.recipients,
    stored: {
      message: g.message,
      channels: resolved.channels,
      requested_channels: g.channels ?? null,
      buttons: g.buttons,
      confirmation_mode: g.confirmation_mode,
      min_approvals: g.min_approvals,
      required_recipients: g.required_recipients,
      exclude_requester: g.exclude_requester,
      ...(g.slack_responders.length > 0 ? { slack_responders: g.slack_responders } : {}),
      comment: g.comment,
      reminders: g.reminders,
      reminders_sent: 0,
      max_snoozes: g.max_snoozes,
      snooze_count: 0,
      timeout: g.timeout,
      timeout_ms: g.timeoutMs,
      on_timeout: g.on_timeout,
      escalation,
      ...(g.quiet_hours ? { quiet_hours: g.quiet_hours } : {}),
      sent_at: null,
      expires_at: null,
      escalated_at: null,
      post_approval_action_id: null,
      fields: g.fields,
      grant: g.grant,
    },
  };
}

/** Which channels the server can send (channels/registry.ts `channelSending`). */
export interface GateChannelSending {
  states: Readonly<Record<ChannelName, ChannelState>>;
  settings: Readonly<Record<ChannelName, readonly string[]>>;
}

/**
 * The approvals port of the create core and of a retry (app/ports.ts `ApprovalGates`). With `sending`, a gate none
 * of whose channels this server can send (production without their settings) is a 422 on `gate.channels`.
 */
export function createApprovalGates(sending?: GateChannelSending): ApprovalGates {
  return {
    async resolve(db, owner, g, now) {
      const gate = await resolveGate(db, owner.accountId, owner.plan, g);
      if (!gate.ok) throw new ValidationError(gate.errors);
      const channels = gate.recipients.flatMap((r) => r.targets.map((t) => t.channel));
      const unsendable = sending ? unsendableGate(channels, sending.states, sending.settings) : null;
      if (unsendable !== null) throw new ValidationError({ 'gate.channels': [unsendable] });
      await assertChannelAllowances(db, owner.accountId, owner.plan, channels, now);
      return gate;
    },
    reopen: (db, row, now) => reopenGate(db, row, now),
  };
}

/** The port without the channel check: what a development server does (every channel has an outbox there). */
export const approvalGates: ApprovalGates = createApprovalGates();
