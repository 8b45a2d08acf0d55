import { type ChatChannelName, E164, Email, SlackMemberId } from '@sched/contract';
import type { ChannelName, ChannelTarget, PushSubscription } from '../../domain/approval/messages.js';
import { chatTarget, isChatChannel } from '../../domain/approval/messages.js';
import type { Sql } from '../../persistence/database.js';
import {
  channelWebhook,
  contactAddresses,
  directoryEntryByAddress,
  teamMemberAddresses,
} from '../../persistence/directory.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Addresses and phones are checked as the rest of the API checks them (contacts, team members).
const isEmail = (text: string) => Email.safeParse(text).success;
const isPhone = (text: string) => E164.safeParse(text).success;

/** A gate recipient resolved to where its messages go. */
export interface ResolvedRecipient {
  reference: string;
  /** Shown as the recipient's `email`: the address or phone number, or the channel's name. */
  address: string;
  displayName: string;
  targets: ChannelTarget[];
}

export type Resolution =
  | { ok: true; recipients: ResolvedRecipient[]; channels: ChannelName[] }
  | { ok: false; errors: Record<string, string[]> };

/** Looks up the account's contacts, notification channels and team members (always scoped to the account). */
export interface RecipientDirectory {
  contact(id: string): Promise<{ name: string; email: string | null; phone: string | null } | null>;
  channel(id: string): Promise<{
    name: string;
    type: ChatChannelName;
    webhook_url: string | null;
    slack_channel_id: string | null;
  } | null>;
  teamMember(id: string): Promise<{
    name: string;
    email: string | null;
    phone: string | null;
    push_subscriptions: PushSubscription[];
  } | null>;
  /** The contact or team member whose stored email or phone is exactly `address`. */
  byAddress(
    address: string,
  ): Promise<{ kind: 'team_member' | 'contact'; id: string; field: 'email' | 'phone' } | null>;
}

/** The directory of one account, read from the database (`db` may be a transaction's). */
export function sqlDirectory(db: Sql, accountId: string): RecipientDirectory {
  return {
    contact: async (id) => (await contactAddresses(db, accountId, id)) ?? null,
    channel: async (id) => (await channelWebhook(db, accountId, id)) ?? null,
    teamMember: async (id) => (await teamMemberAddresses(db, accountId, id)) ?? null,
    byAddress: (address) => directoryEntryByAddress(db, accountId, address),
  };
}

/**
 * A recipient that a value chose (a trigger's placeholder, a chain's input or a step's response) as a reference
 * to the account's own directory (an anonymous caller never chooses who approves): `contact:<id>:email|phone`, `channel:<id>` and ids stay; an email or a
 * phone must be stored on a contact or a team member, and becomes a reference to it. A free address never passes.
 */
export async function directoryReference(
  ref: string,
  directory: RecipientDirectory,
): Promise<{ ok: true; reference: string } | { ok: false; error: string }> {
  const text = ref.trim();
  if (/^(contact|channel):/i.test(text) || UUID.test(text)) return { ok: true, reference: text };
  if (isEmail(text) || isPhone(text)) {
    const entry = await directory.byAddress(text);
    if (entry?.kind === 'team_member') return { ok: true, reference: entry.id };
    if (entry) return { ok: true, reference: `contact:${entry.id}:${entry.field}` };
  }
  return {
    ok: false,
    error:
      "a recipient taken from a value must be one of the account's contacts or team members (by id or by their stored email or phone)",
  };
}

/** `recipients` with the entries at `fromValues` turned into directory references; errors keyed `<field>.<i>`. */
export async function recipientsFromDirectory(
  recipients: readonly string[],
  fromValues: readonly number[],
  directory: RecipientDirectory,
  field: string,
): Promise<{ ok: true; recipients: string[] } | { ok: false; errors: Record<string, string[]> }> {
  const out = [...recipients];
  const errors: Record<string, string[]> = {};
  for (const i of fromValues) {
    const found = await directoryReference(out[i] ?? '', directory);
    if (found.ok) out[i] = found.reference;
    else errors[`${field}.${i}`] = [found.error];
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, recipients: out };
}

/** One target per distinct destination: a team member may list one push subscription twice. */
function distinct(targets: ChannelTarget[]): ChannelTarget[] {
  const keys = targets.map((t) => JSON.stringify(t));
  return targets.filter((_, i) => keys.indexOf(keys[i]!) === i);
}

/** Name shown for a bare address: the part before @, or the number itself. */
function detectedName(address: string): string {
  return address.includes('@') ? address.split('@')[0]! : address;
}

/**
 * Resolves `gate.recipients`: emails, E.164 phones, `contact:<id>:email|phone`, `channel:<uuid>` and team
 * member ids. With explicit `channels`, a recipient is reached only through those (a channel reference always through
 * its own Slack or Teams); without, through what it needs (email for addresses, sms for phones, all a team member has).
 */
export async function resolveRecipients(
  references: readonly string[],
  opts: {
    channels: ChannelName[] | undefined;
    directory: RecipientDirectory;
    field: string;
    slackTeamsAllowed: boolean;
  },
): Promise<Resolution> {
  const errors: Record<string, string[]> = {};
  const recipients: ResolvedRecipient[] = [];
  const seen = new Set<string>();
  const allowed = (c: ChannelName) => opts.channels === undefined || opts.channels.includes(c);
  for (const [i, raw] of references.entries()) {
    const ref = raw.trim();
    const field = `${opts.field}.${i}`;
    const fail = (message: string) => {
      errors[field] = [message];
    };
    const resolved = await resolveOne(ref, opts.directory);
    if ('error' in resolved) {
      fail(resolved.error);
      continue;
    }
    const targets = distinct(resolved.targets.filter((t) => isChatChannel(t.channel) || allowed(t.channel)));
    if (targets.some((t) => isChatChannel(t.channel)) && !opts.slackTeamsAllowed) {
      fail('Slack and Teams are Business-plan features');
      continue;
    }
    if (targets.length === 0) {
      fail(`no channel in gate.channels (${opts.channels?.join(', ')}) reaches this recipient`);
      continue;
    }
    // The same person named twice (or by two references that reach the same places) is asked once.
    const key = JSON.stringify(targets);
    if (seen.has(key)) continue;
    seen.add(key);
    recipients.push({
      reference: ref,
      address: resolved.address,
      displayName: resolved.displayName,
      targets,
    });
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const used = new Set(recipients.flatMap((r) => r.targets.map((t) => t.channel)));
  return { ok: true, recipients, channels: opts.channels ?? [...used] };
}

async function resolveOne(
  ref: string,
  dir: RecipientDirectory,
): Promise<Omit<ResolvedRecipient, 'reference'> | { error: string }> {
  const contact = /^contact:([^:]+):(email|phone)$/i.exec(ref);
  if (contact) {
    const [, id, field] = contact;
    const c = UUID.test(id!) ? await dir.contact(id!) : null;
    if (!c) return { error: `unknown contact ${id}` };
    if (field!.toLowerCase() === 'email') {
      if (!c.email) return { error: `contact ${id} has no email` };
      return {
        address: c.email,
        displayName: c.name,
        targets: [{ channel: 'email', email: c.email, name: c.name }],
      };
    }
    if (!c.phone) return { error: `contact ${id} has no phone` };
    return { address: c.phone, displayName: c.name, targets: [{ channel: 'sms', phone: c.phone }] };
  }
  const channel = /^channel:(.+)$/i.exec(ref);
  if (channel) {
    const id = channel[1]!;
    const ch = UUID.test(id) ? await dir.channel(id) : null;
    if (!ch) return { error: `unknown channel ${id}` };
    return {
      address: ch.name,
      displayName: ch.name,
      targets: [chatTarget(ch)],
    };
  }
  const member = /^slack:(.+)$/i.exec(ref);
  if (member) {
    const id = member[1]!;
    if (!SlackMemberId.safeParse(id).success)
      return { error: 'slack: takes a Slack member id such as U012AB3CD' };
    return { address: `slack:${id}`, displayName: id, targets: [{ channel: 'slack', slackMemberId: id }] };
  }
  if (UUID.test(ref)) {
    const m = await dir.teamMember(ref);
    if (!m) {
      // A bare contact id reaches the contact by what it has ("emails, phones or contact ids").
      const c = await dir.contact(ref);
      if (!c) return { error: `unknown team member or contact ${ref}` };
      const targets: ChannelTarget[] = [];
      if (c.email) targets.push({ channel: 'email', email: c.email, name: c.name });
      if (c.phone) targets.push({ channel: 'sms', phone: c.phone });
      return { address: c.email ?? c.phone ?? c.name, displayName: c.name, targets };
    }
    const targets: ChannelTarget[] = [];
    if (m.email) targets.push({ channel: 'email', email: m.email, name: m.name });
    if (m.phone) targets.push({ channel: 'sms', phone: m.phone });
    for (const subscription of m.push_subscriptions) targets.push({ channel: 'push', subscription });
    return { address: m.email ?? m.phone ?? m.name, displayName: m.name, targets };
  }
  if (isPhone(ref)) return { address: ref, displayName: ref, targets: [{ channel: 'sms', phone: ref }] };
  if (isEmail(ref))
    return { address: ref, displayName: detectedName(ref), targets: [{ channel: 'email', email: ref }] };
  return {
    error:
      'must be an email, an E.164 phone, contact:<id>:email|phone, channel:<id>, slack:<member id> or a team member id',
  };
}

/**
 * Escalation contacts: emails or phones, optionally prefixed `email:` / `sms:`; a contact without a
 * prefix is an email unless it is an E.164 phone. Contact references work too.
 */
export async function resolveEscalationContacts(
  contacts: readonly string[],
  opts: { directory: RecipientDirectory; field: string },
): Promise<Resolution> {
  const normalized = contacts.map((c) =>
    c
      .trim()
      .replace(/^(email|mailto):/i, '')
      .replace(/^(sms|phone|tel):/i, ''),
  );
  return resolveRecipients(normalized, {
    channels: undefined,
    directory: opts.directory,
    field: opts.field,
    slackTeamsAllowed: true,
  });
}
