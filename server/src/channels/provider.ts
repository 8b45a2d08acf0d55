import { CHANNEL_HTTP_TIMEOUT_MS, type ChannelHttp } from './http.js';
import type { ChannelAdapter, ChannelMessage, ChannelName, ChannelTarget, DeliveryReceipt } from './types.js';

/** A target of one channel: the adapter of that channel sends to nothing else. */
export type TargetOf<N extends ChannelName> = Extract<ChannelTarget, { channel: N }>;

/**
 * The adapter of a configured channel: `send` receives only its own channel's targets; a target of another channel
 * (a caller's mistake, never a recipient's) is a failed receipt, not a throw.
 */
export function providerAdapter<N extends ChannelName>(
  name: N,
  send: (target: TargetOf<N>, message: ChannelMessage) => Promise<DeliveryReceipt>,
): ChannelAdapter {
  return {
    name,
    configured: true,
    send(target: ChannelTarget, message: ChannelMessage): Promise<DeliveryReceipt> {
      if (target.channel !== name)
        return Promise.resolve({
          ok: false,
          via: 'provider',
          error: `${name} channel cannot send to a ${target.channel} target`,
        });
      return send(target as TargetOf<N>, message);
    },
  };
}

/** A JSON POST to a chat webhook (Slack, Teams) within the bound of every outgoing request. */
export function postJson(http: ChannelHttp, url: string, payload: unknown) {
  return http({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(payload),
    timeoutMs: CHANNEL_HTTP_TIMEOUT_MS,
  });
}
