/**
 * Save-time check of a URL that holds expressions: its literal start decides the scheme, so a URL such as
 * `ftp://{{host}}/x` can never be valid and is refused at once, while `https://{{host}}/x` or `{{input.url}}` wait
 * for their values (the destination policy checks the result when the request is sent).
 */
import { canonicalOrigin } from '@sched/contract';
import { ExpressionError } from './errors.js';
import { resolveExpression, type Scope, stringifyValue } from './interpolate.js';
import { type Expression, parseTemplate, type TemplatePart } from './syntax.js';

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

/** The part of a URL an expression sits in, read from the literal text before it. */
export type UrlComponent = 'origin' | 'path' | 'query' | 'fragment';

/**
 * Each expression of a URL template with the component it falls in. `origin` covers the scheme and the authority
 * (userinfo, host, port), and an expression before `://` (a whole URL such as `{{input.url}}`). Literal text alone
 * decides: values are encoded so that they can never change the component that follows them.
 */
export function urlExpressionComponents(
  template: string,
): { component: UrlComponent; expression: TemplatePart & { kind: 'expression' } }[] {
  const found: { component: UrlComponent; expression: TemplatePart & { kind: 'expression' } }[] = [];
  let component: UrlComponent | 'scheme' = 'scheme';
  let pending = '';
  for (const part of parseTemplate(template)) {
    if (part.kind === 'expression') {
      found.push({ component: component === 'scheme' ? 'origin' : component, expression: part });
      continue;
    }
    for (const ch of part.text) {
      if (component === 'scheme') {
        pending += ch;
        if (pending.endsWith('://')) component = 'origin';
      } else if (component === 'origin') {
        if (ch === '/' || ch === '\\') component = 'path';
        else if (ch === '?') component = 'query';
        else if (ch === '#') component = 'fragment';
      } else if (component === 'path') {
        if (ch === '?') component = 'query';
        else if (ch === '#') component = 'fragment';
      } else if (component === 'query' && ch === '#') {
        component = 'fragment';
      }
    }
  }
  return found;
}

/** Whether the URL template has an expression in its scheme or authority (its origin depends on a value). */
export function hasOriginExpression(template: string): boolean {
  try {
    return urlExpressionComponents(template).some((f) => f.component === 'origin');
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

/** The save-time message for a URL whose origin depends on a value and no allowed origin is declared. */
export const ORIGIN_EXPRESSION_NEEDS_ALLOWLIST =
  'an expression in the scheme or host needs allowed_origins (the origins the resolved URL may use, e.g. https://api.example.com)';

/**
 * A value in a path segment, a query or a fragment: percent-encoded so that it cannot end the component. Text that is
 * not valid Unicode (a lone surrogate) cannot be encoded: the expression's error, never a URIError.
 */
function encodeValue(text: string, source: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch (error) {
    if (error instanceof URIError)
      throw new ExpressionError(`{{${source}}} holds text that is not valid Unicode (a lone surrogate)`);
    throw error;
  }
  return encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** What an origin value may hold: a host name, an IPv4 or bracketed IPv6 address, a port. Never / ? # @ \ or %. */
const ORIGIN_VALUE = /^[A-Za-z0-9.\-:[\]]*$/;

/** WHATWG URL reads these segments as `.` and `..` (percent-encoded dots included). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Interpolates a request URL by component, so a value never rewrites it: a value in the path becomes part of one segment
 * (percent-encoded, `/` included), a value in the query or the fragment one encoded value; a segment that reads
 * `.` or `..` once the values are in is refused. A value in the scheme or authority is allowed only when the
 * owner declared `allowedOrigins`: it may then not hold `/ ? # @ \ %`, except when it is the whole URL, and the
 * resolved origin must be one of them. Throws ExpressionError (with the path empty) when a value does not fit.
 */
export function interpolateUrl(
  template: string,
  scope: Scope,
  allowedOrigins: readonly string[] = [],
  /** Origin expressions whose values the owner supplied (a chain's own input): written as they are. */
  trusted: (expression: Expression) => boolean = () => false,
): string {
  const parts = parseTemplate(template);
  const components = urlExpressionComponents(template);
  const trustedOrigin =
    allowedOrigins.length === 0 &&
    components.every((c) => c.component !== 'origin' || trusted(c.expression.expression));
  let out = '';
  let index = 0;
  /** Path segments that hold a value, as [start, end) offsets into `out` once built. */
  const segmentsWithValues: number[] = [];
  const wholeUrl = parts.length === 1 && parts[0]!.kind === 'expression';
  for (const part of parts) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    const { component } = components[index++]!;
    const text = stringifyValue(resolveExpression(part.expression, scope));
    if (component === 'origin' && trustedOrigin) {
      out += text;
    } else if (component === 'origin') {
      if (allowedOrigins.length === 0) {
        throw new ExpressionError(`{{${part.expression.source}}}: ${ORIGIN_EXPRESSION_NEEDS_ALLOWLIST}`);
      }
      if (!wholeUrl && !ORIGIN_VALUE.test(text)) {
        throw new ExpressionError(
          `{{${part.expression.source}}} must be a host name or a port here; it holds a character that would change the URL`,
        );
      }
      out += text;
    } else {
      if (component === 'path') segmentsWithValues.push(out.length);
      out += encodeValue(text, part.expression.source);
    }
  }
  if (segmentsWithValues.length > 0) {
    const pathEnd = (() => {
      const q = out.search(/[?#]/);
      return q < 0 ? out.length : q;
    })();
    for (const at of segmentsWithValues) {
      const start = Math.max(out.lastIndexOf('/', at - 1), out.lastIndexOf('\\', at - 1)) + 1;
      const rest = out.slice(at, pathEnd).search(/[/\\]/);
      const end = rest < 0 ? pathEnd : at + rest;
      if (DOT_SEGMENT.test(out.slice(start, end))) {
        throw new ExpressionError(
          'a value made a path segment . or .., which would move the request to another path',
        );
      }
    }
  }
  if (!trustedOrigin && components.some((c) => c.component === 'origin')) {
    let url: URL;
    try {
      url = new URL(out);
    } catch {
      throw new ExpressionError('the values do not make a valid URL');
    }
    const allowed = allowedOrigins.map((o) => canonicalOrigin(o) ?? o);
    if (url.username !== '' || url.password !== '' || !allowed.includes(url.origin)) {
      throw new ExpressionError(
        `the resolved origin ${url.username !== '' ? '(with user info) ' : ''}${url.origin} is not one of allowed_origins`,
      );
    }
  }
  return out;
}
