/**
 * Save-time check of a URL that holds expressions: its literal start decides the scheme, so a URL such as
 * `ftp://{{host}}/x` can never be valid and is refused at once, while `https://{{host}}/x` or `{{input.url}}` wait
 * for their values (the destination policy checks the result when the request is sent).
 */
import { ExpressionError } from './errors.js';
import { parseTemplate } from './interpolate.js';

/**
 * Why no values could make this URL acceptable, or null when some could. `schemes` are the allowed ones with
 * their colon, as the destination policy lists them (`['https:']`, or `['https:', 'http:']` when private
 * destinations are allowed). Malformed expressions are reported elsewhere and give null here.
 */
export function urlTemplateProblem(template: string, schemes: readonly string[]): string | null {
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(template);
  } catch (error) {
    if (error instanceof ExpressionError) return null;
    throw error;
  }
  const first = parts[0];
  if (first === undefined || first.kind === 'expression') return null;
  const start = first.text.toLowerCase();
  const colon = start.indexOf(':');
  const allowed = schemes.map((s) => s.toLowerCase());
  // Without a colon yet, the literal start may still be completed into a scheme by an expression that follows.
  const possible =
    colon >= 0
      ? allowed.includes(start.slice(0, colon + 1))
      : parts.length > 1 && allowed.some((s) => s.startsWith(start));
  return possible ? null : `must use ${allowed.map((s) => s.slice(0, -1)).join(' or ')}`;
}
