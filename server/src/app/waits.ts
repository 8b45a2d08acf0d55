/**
 * SCHED_TIME_SCALE, applied in one place. Every wait the service chooses (a retry, a reschedule, a callback retry,
 * a gate's timeout, a recurrence's spacing) goes through here; with the default scale of 1 each is returned as it
 * is, so tests at a scale run the same code as production, only with shorter waits.
 */
export interface Waits {
  readonly timeScale: number;
  /** A chosen wait, in real milliseconds; `floorMs` keeps scaled network timeouts workable. */
  wait(ms: number, floorMs?: number): number;
  /** `nominal` on a schedule anchored at `anchor`, in real time: its distance from the anchor is scaled. */
  along(anchor: Date, nominal: Date): Date;
}

export function createWaits(timeScale = 1): Waits {
  if (!(timeScale > 0)) throw new RangeError('the time scale must be positive');
  return {
    timeScale,
    wait: (ms, floorMs = 0) => (timeScale === 1 ? ms : Math.max(floorMs, ms / timeScale)),
    along: (anchor, nominal) =>
      timeScale === 1
        ? nominal
        : new Date(anchor.getTime() + (nominal.getTime() - anchor.getTime()) / timeScale),
  };
}
