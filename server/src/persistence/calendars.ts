import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';

/** A `calendars` row, typed from the entity (persistence/entities/calendar.ts). Every query names the account. */
export type CalendarRow = Selectable<Tables['calendars']>;
export type NewCalendar = Insertable<Tables['calendars']>;
export type CalendarChanges = Updateable<Tables['calendars']> & { updated_at: Date };

export async function insertCalendar(db: Sql, c: NewCalendar): Promise<CalendarRow> {
  return db.insertInto('calendars').values(c).returningAll().executeTakeFirstOrThrow();
}

export async function findCalendar(db: Sql, accountId: string, id: string): Promise<CalendarRow | null> {
  return (
    (await db
      .selectFrom('calendars')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()) ?? null
  );
}

/** The account's calendars among `ids` (others' and unknown ids are left out). */
export async function findCalendars(
  db: Sql,
  accountId: string,
  ids: readonly string[],
): Promise<CalendarRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('calendars')
    .selectAll()
    .where('id', 'in', [...ids])
    .where('account_id', '=', accountId)
    .execute();
}

export async function listCalendars(
  db: Sql,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<Listing<CalendarRow>> {
  return newestFirstPage(db, db.selectFrom('calendars').where('account_id', '=', accountId), page);
}

export async function updateCalendar(
  db: Sql,
  accountId: string,
  id: string,
  changes: CalendarChanges,
): Promise<CalendarRow | null> {
  return (
    (await db
      .updateTable('calendars')
      .set(changes)
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}

export async function deleteCalendar(db: Sql, accountId: string, id: string): Promise<CalendarRow | null> {
  return (
    (await db
      .deleteFrom('calendars')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}
