import { isBlockedAddress } from '../../domain/destinations/policy.js';
import { countedNames } from '../../domain/domains/rules.js';
import { announceBefore } from '../../domain/schedule/window.js';
import { type ActionRow, insertActionsWithAudit } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import { auditBatch } from '../audit.js';
import { isUncountedDestination } from '../domains/guard.js';
import {
  type ActionOwner,
  type CreateCoreDeps,
  type NewActionRecord,
  newActionRecord,
  REQUEST,
  takeActionQuota,
} from './create.js';
import type { PreparedAction } from './prepare.js';

/**
 * The create core's batch writer, beside `writeNewAction`: rows without a gate or keys, written by one statement
 * with their `action.create` events and the announcement of those due soon. The single create's group commit (the
 * one-statement creates of a turn) and a batch's plain items both end here.
 */
export function insertNewActions(
  db: Sql,
  records: readonly NewActionRecord[],
  now: Date,
): Promise<ActionRow[]> {
  return insertActionsWithAudit(
    db,
    records.map((r) => r.row),
    auditBatch(records.flatMap((r) => (r.audit ? [r.audit] : []))),
    announceBefore(now),
  );
}

/**
 * Plain creates of one owner in the caller's transaction (`POST /v1/actions/batch`): each destination counted
 * (whether a host is counted at all read once per host), the quota taken for all of them together (a batch that
 * does not fit whole takes nothing), then `insertNewActions`. A refusal throws before anything is written; its
 * 422 names the item's `field`.
 */
export async function writeNewActions(
  db: Sql,
  owner: ActionOwner,
  items: readonly { action: PreparedAction; field: string }[],
  ctx: {
    now: Date;
    traceparent: string | null;
    countLater: ((period: string, amount: number) => void) | undefined;
  },
  deps: Pick<CreateCoreDeps, 'countDestination'>,
): Promise<ActionRow[]> {
  if (items.length === 0) return [];
  const { now } = ctx;
  const count = deps.countDestination;
  const unverifiedHosts = new Map<string, boolean>();
  const records: NewActionRecord[] = [];
  for (const { action: p, field } of items) {
    let firstSend: 'created' | 'none' = 'none';
    const names = p.request && count ? countedNames(p.request.url, isBlockedAddress) : [];
    if (names.length > 0) {
      const host = names.join(' ');
      let unverified = unverifiedHosts.get(host);
      if (unverified === undefined) {
        unverified = !(await isUncountedDestination(db, owner.accountId, p.request!.url));
        unverifiedHosts.set(host, unverified);
      }
      const opts = { unverified: true, field: `${field}.request.url` };
      if (unverified && (await count!(db, owner.accountId, p.request!.url, now, opts))) firstSend = 'created';
    }
    records.push(
      newActionRecord(p, {
        accountId: owner.accountId,
        gate: null,
        origin: REQUEST,
        now,
        traceparent: ctx.traceparent,
        firstSend,
      }),
    );
  }
  await takeActionQuota(db, owner, now, ctx.countLater, items.length);
  return insertNewActions(db, records, now);
}
