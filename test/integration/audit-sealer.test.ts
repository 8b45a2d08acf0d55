import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditSealer, recordAudit } from '../../server/src/app/audit.js';
import { AUDIT_SEAL_IDLE_MS, AuditSealerLoop } from '../../server/src/jobs/audit-sealer.js';
import { createLogger } from '../../server/src/logger.js';
import { manualClock } from '../support/manual-clock.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';

// The worker's audit sealer on an idle server: passes that find nothing to chain back off up to 16 s (an idle server
// does not query the log every second), and events written by the same process bring it back to its one-second pace
// at once, so they are chained within a second however long it had been idle. Driven by a manual clock's timers.
describe('the audit sealer loop', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  const pending = async () =>
    Number(
      (
        await rawQuery<{ n: string }>(
          t.database.sql,
          'select count(*) as n from audit_pending where account_id = $1',
          [accountId],
        )
      )[0]!.n,
    );
  /** Lets the loop's statement finish (a real database round trip) before time moves on. */
  const settle = () => new Promise((r) => setTimeout(r, 100));

  beforeAll(async () => {
    t = await openTestDatabase('audit_sealer');
    accountId = await t.newAccount();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('backs off while idle, and chains what this process writes within its one-second pace', async () => {
    const manual = manualClock(new Date('2026-05-04T00:00:00Z'));
    let passes = 0;
    const sealer = new AuditSealer(t.database);
    const loop = new AuditSealerLoop({
      sealer: {
        sealAll: async () => {
          passes += 1;
          return sealer.sealAll();
        },
      },
      logger: createLogger('silent'),
      timers: manual.timers,
    });
    loop.start();
    try {
      // A minute with nothing to chain: passes at 0, 2, 6, 14, 30 and 46 s, not sixty.
      for (let s = 0; s < 60; s += 1) {
        await settle();
        await manual.advance(1_000);
      }
      await settle();
      expect(passes).toBe(6);
      expect(AUDIT_SEAL_IDLE_MS).toBe(16_000);

      // An event written here: chained at the next second, not at the backed-off pass 16 s later.
      await t.database.transaction((db) =>
        recordAudit(db, accountId, { action: 'contact.create', resource: { type: 'contact', id: 'c1' } }),
      );
      expect(await pending()).toBe(1);
      await manual.advance(1_000);
      await settle();
      expect(await pending()).toBe(0);
    } finally {
      await loop.stop();
    }
  });
});
