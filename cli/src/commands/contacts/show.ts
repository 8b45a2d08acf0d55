import type { Contact } from '@sched/sdk';

const COLUMNS = ['id', 'name', 'email', 'phone', 'created_at'];

/** Contacts as a table: the columns every contacts verb prints. */
export const contactTable = (rows: Contact[]) => ({
  rows: rows as unknown as Record<string, unknown>[],
  columns: COLUMNS,
});
