/** An answer that carries the rate-limit headers (`api()` of server.ts, or a fetch Response). */
interface Limited {
  status: number;
  headers: Headers;
}

/** The window an answer was counted in: the Unix second its limit resets (X-RateLimit-Reset). */
export const windowOf = (answer: Limited): string => answer.headers.get('x-ratelimit-reset') ?? '';

/**
 * Sends requests one after another until one is refused (429), and answers those counted in the refused one's
 * window. Windows are fixed minutes aligned to the epoch, so a run may straddle a boundary; grouping by the window
 * each answer names keeps the count exact without waiting for a fresh window to start.
 */
export async function sendUntilRefused<R extends Limited>(
  send: (i: number) => Promise<R>,
  max = 500,
): Promise<R[]> {
  const answers: R[] = [];
  for (let i = 0; i < max; i++) {
    const answer = await send(i);
    answers.push(answer);
    if (answer.status === 429) return answers.filter((a) => windowOf(a) === windowOf(answer));
  }
  throw new Error(`no request of ${max} was refused`);
}
