/** Options of the `wait` helpers, which poll a resource until it reaches a state. */
export interface WaitOptions {
  /** Between two reads (default 1000 ms). */
  intervalMs?: number;
  /** Gives up after this long (default 300 000 ms: 5 minutes); 0 waits forever. */
  timeoutMs?: number;
  /** Stops waiting (and the read in flight). */
  signal?: AbortSignal;
}

/** `wait` gave up before the resource reached the state asked for; `last` is the last state read. */
export class SchedWaitTimeoutError<T = unknown> extends Error {
  override name = 'SchedWaitTimeoutError';
  constructor(
    message: string,
    readonly last: T,
  ) {
    super(message);
  }
}

/** Reads until `done(value)`, sleeping `intervalMs` between reads. */
export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitOptions,
  what: string,
): Promise<T> {
  const interval = options.intervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 300_000;
  const giveUpAt = timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    const left = giveUpAt - Date.now();
    if (left <= 0)
      throw new SchedWaitTimeoutError(
        `${what} did not reach the awaited state within ${timeoutMs} ms`,
        value,
      );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.min(interval, left));
      options.signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(options.signal?.reason);
        },
        { once: true },
      );
    });
  }
}
