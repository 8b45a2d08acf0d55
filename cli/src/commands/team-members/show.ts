import type { TeamMember } from '@sched/sdk';

const COLUMNS = ['id', 'name', 'email', 'phone', 'push', 'created_at'];
export const table = (rows: TeamMember[]) => ({
  rows: rows.map((m) => ({ ...m, push: m.push_subscriptions.length })),
  columns: COLUMNS,
});
