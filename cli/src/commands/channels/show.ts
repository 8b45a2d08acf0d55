import { CHAT_CHANNELS } from '@sched/contract';
import type { NotificationChannel } from '@sched/sdk';

const COLUMNS = ['id', 'name', 'type', 'webhook', 'created_at', 'warnings'];
export const CHANNEL_TYPES = CHAT_CHANNELS;

/** Incoming webhook URLs are credentials (anyone holding one can post): tables show the host only, JSON all. */
export function maskWebhookUrl(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '(invalid URL)';
  }
}

export const table = (rows: NotificationChannel[]) => ({
  rows: rows.map((c) => ({
    ...c,
    webhook: c.webhook_url === null ? `slack app ${c.slack_channel_id ?? ''}` : maskWebhookUrl(c.webhook_url),
    // Long sentences: the table says that there is one; `--json` and `sched channels get` read it.
    warnings:
      c.warnings.length === 0
        ? null
        : c.warnings.some((w) => /retired/.test(w))
          ? 'connector retired'
          : 'yes',
  })),
  columns: COLUMNS,
});
