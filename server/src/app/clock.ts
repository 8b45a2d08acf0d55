import type { Clock, Timers } from './ports.js';

/** The process's clock: wall time. main.ts builds the use cases and triggers on it; tests pass a manual one. */
export const systemClock: Clock = () => new Date();

/** The process's timers: Node's, kept alive while pending (a trigger armed for an attempt must fire). */
export const systemTimers: Timers = {
  after(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};
