// Baseline "pg-boss": the same validation + boss.send(queue, data, {startAfter}): what a user would build instead
// with the stack's own queue.
import { lib, serveActions, args } from './common.mjs';

const { PgBoss } = lib('pg-boss');
const boss = new PgBoss({ connectionString: args.db, max: 20, schema: 'baseline_boss' });
boss.on('error', () => undefined);
await boss.start();
await boss.createQueue('webhooks');
await serveActions(async ({ request, scheduled_for }) => {
  const id = await boss.send('webhooks', request, { startAfter: new Date(scheduled_for) });
  return { id, status: 'scheduled', scheduled_for };
});
