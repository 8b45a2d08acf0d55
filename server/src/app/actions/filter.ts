import type { ActionFilterInput } from '@sched/contract';
import { parseActionStatus } from '../../domain/action/states.js';
import { parseDestination } from '../../domain/destinations/origin.js';
import { impliedErrorClass, parseStatusCodeFilter } from '../../domain/delivery/error-class.js';
import type { ActionFilter } from '../../persistence/actions.js';
import { currentMode } from './prepare.js';

/** The filters of `GET /actions` as the contract parses them; bulk operations' `filter` is the same object. */
export type ActionFilterQuery = Partial<ActionFilterInput>;

const time = (v: string | undefined) => (v === undefined ? undefined : new Date(v));

/**
 * The API's filters as the persistence filter, legacy names folded in; null when they can match nothing (a status
 * that names no state, a `last_status_code` that is no code).
 */
export function toActionFilter(q: ActionFilterQuery): ActionFilter | null {
  const status = q.status ? parseActionStatus(q.status) : undefined;
  if (status === null) return null;
  const code =
    q.last_status_code === undefined ? undefined : parseStatusCodeFilter(String(q.last_status_code));
  if (code === null) return null;
  // A status outside 2xx is always class `http`. Said outright, a count of the code alone reads the index over
  // failing attempts instead of every action. With a state or a destination named it is left unsaid: the indexes of
  // those carry the code beside each entry, where the failing attempts' index would read (and sort) every failing
  // action of the account to find one host's (1.7 s at ten million).
  const implied = code ? impliedErrorClass(code) : null;
  if (implied && q.error_class && q.error_class !== implied) return null;
  const narrowed =
    q.status !== undefined || q.destination_host !== undefined || q.destination_origin !== undefined;
  const errorClass = q.error_class ?? (narrowed ? undefined : implied) ?? undefined;
  const key = q.coordination_key ?? q.dedup_key;
  const destination = q.destination_origin === undefined ? undefined : parseDestination(q.destination_origin);
  if (destination === null) return null;
  const f: ActionFilter = {
    ...(status ? { status } : {}),
    ...(q.mode ? { mode: currentMode(q.mode) } : {}),
    ...(q.search ? { search: q.search } : {}),
    ...(key ? { dedupKey: key } : {}),
    ...(q.recurring ? { recurring: q.recurring === 'recurring' } : {}),
    ...(q.destination_host
      ? { destinationHost: q.destination_host.trim().replace(/\.+$/, '').toLowerCase() }
      : {}),
    ...(destination ? { destinationOrigin: destination } : {}),
    ...(code ? { lastStatusCode: code } : {}),
    ...(errorClass ? { errorClass } : {}),
  };
  const bounds = {
    failedAfter: time(q.failed_after),
    failedBefore: time(q.failed_before),
    createdAfter: time(q.created_after),
    createdBefore: time(q.created_before),
    scheduledAfter: time(q.scheduled_after),
    scheduledBefore: time(q.scheduled_before),
  };
  for (const [k, v] of Object.entries(bounds)) if (v) (f as Record<string, unknown>)[k] = v;
  // `failed_*` means the failed actions; with another status asked for, nothing matches.
  if ((f.failedAfter || f.failedBefore) && f.status && f.status !== 'failed') return null;
  return f;
}
