import { quietEnd } from '../../domain/window/quiet.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import { loadCalendarBook } from '../calendars/book.js';
import { closedDaysOf } from '../actions/window.js';

/** What an approval sends: held by quiet hours, except escalations when `escalations: send`. */
export type QuietMessage = 'request' | 'reminder' | 'escalation';

/**
 * Until when quiet hours hold a message of this gate sent at `now`; null when it may go now (no quiet hours, outside
 * them, or an escalation they let through). The gate's timeout is not touched: it keeps running (docs/windows.md).
 */
export async function quietHoldUntil(
  db: Sql,
  accountId: string,
  gate: Pick<StoredGate, 'quiet_hours'>,
  now: Date,
  kind: QuietMessage,
): Promise<Date | null> {
  const quiet = gate.quiet_hours;
  if (!quiet?.timezone) return null;
  if (kind === 'escalation' && quiet.escalations === 'send') return null;
  const book = await loadCalendarBook(db, accountId, [quiet.calendar]);
  const end = quietEnd({ ...quiet, timezone: quiet.timezone }, now, closedDaysOf(quiet, book));
  return end.getTime() > now.getTime() ? end : null;
}
