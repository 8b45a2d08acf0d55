import { CHANNEL_STATE, type ChannelState } from '@sched/contract';
import type { ChannelName } from './messages.js';

/**
 * Whether this server can send each channel's messages. A channel without its settings keeps its messages in the
 * outbox on a development server, where someone reads them (`sched outbox list`); in production nobody does, so
 * there such a channel is `not_configured`: its messages are refused at create when no channel of the gate can be
 * sent, and recorded as not sent otherwise, never shown as sent.
 */
export function channelStates(
  channels: readonly ChannelName[],
  configured: ReadonlySet<ChannelName>,
  production: boolean,
): Record<ChannelName, ChannelState> {
  const states = {} as Record<ChannelName, ChannelState>;
  for (const name of channels)
    states[name] = configured.has(name)
      ? CHANNEL_STATE.configured
      : production
        ? CHANNEL_STATE.not_configured
        : CHANNEL_STATE.outbox;
  return states;
}

/** Whether a message on this channel leaves the server (a provider or the development outbox takes it). */
export function canSend(states: Readonly<Record<ChannelName, ChannelState>>, channel: ChannelName): boolean {
  return states[channel] !== CHANNEL_STATE.not_configured;
}

/** The sentence that says why a channel's message is not sent, naming the settings it needs. */
export function notConfiguredReason(channel: ChannelName, settings: readonly string[]): string {
  return `${channel} is not configured on this server (set ${settings.join(', ')})`;
}

/**
 * The create's refusal of a gate none of whose channels this server can send (null when one can): every channel
 * named with the settings it lacks, for the 422 on `gate.channels`.
 */
export function unsendableGate(
  channels: readonly ChannelName[],
  states: Readonly<Record<ChannelName, ChannelState>>,
  settings: Readonly<Record<ChannelName, readonly string[]>>,
): string | null {
  const used = [...new Set(channels)];
  if (used.length === 0 || used.some((c) => canSend(states, c))) return null;
  return `no channel of this approval can be sent by this server: ${used
    .map((c) => notConfiguredReason(c, settings[c]))
    .join('; ')}`;
}
