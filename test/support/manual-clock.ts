import type { Clock, Timers } from '../../server/src/app/ports.js';

/**
 * A clock and its timers driven by hand (the clock port of app/ports.ts): time moves only in `advance`, which fires
 * the timers falling due in order, each at its own time, and lets the work they start run before going on.
 */
export function manualClock(start: Date): {
  clock: Clock;
  timers: Timers;
  advance(ms: number): Promise<void>;
  /** Timers armed and not yet fired or cancelled. */
  pending(): number;
} {
  let now = start.getTime();
  let seq = 0;
  const armed: { at: number; seq: number; fn: () => void; cancelled: boolean }[] = [];
  // Lets promise chains and I/O callbacks started by a timer run (a database round trip takes several turns).
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
  };
  return {
    clock: () => new Date(now),
    timers: {
      after(ms, fn) {
        const timer = { at: now + Math.max(0, ms), seq: seq++, fn, cancelled: false };
        armed.push(timer);
        return {
          cancel: () => {
            timer.cancelled = true;
          },
        };
      },
    },
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        armed.sort((a, b) => a.at - b.at || a.seq - b.seq);
        const i = armed.findIndex((t) => !t.cancelled && t.at <= until);
        if (i < 0) break;
        const [next] = armed.splice(i, 1);
        now = next!.at;
        next!.fn();
        await settle();
      }
      now = until;
      await settle();
    },
    pending: () => armed.filter((t) => !t.cancelled).length,
  };
}
