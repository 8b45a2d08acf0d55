/**
 * What an audit event may say about what a caller sent. The log is append-only and read-only keys read it, so it
 * holds no header value, request body, URL query, email address or phone number (docs/audit.md): those would stay
 * for the whole retention and could never be erased. These builders are the one place that decides it.
 */
import { shownHeaders } from '../auth/api-key.js';

/**
 * A request or callback URL as the log records it: scheme, host and path; user info, query and fragment (where
 * tokens travel, `?key=…`) replaced by a mark. A URL that does not parse is not recorded.
 */
export function auditUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const hidden = parsed.search !== '' || parsed.hash !== '' ? '?***' : '';
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${hidden}`;
}

/** A replay's overrides: schedule fields as sent, header names only (values `***`), and whether a body was given. */
export function auditReplayOptions(replay: {
  request?: { headers?: Record<string, string> | undefined; body?: unknown } | undefined;
  [field: string]: unknown;
}): Record<string, unknown> {
  const { request, ...rest } = replay;
  if (request === undefined) return rest;
  return {
    ...rest,
    request: {
      ...(request.headers !== undefined && { headers: shownHeaders(request.headers, false) }),
      ...(request.body !== undefined && { body_replaced: true }),
    },
  };
}

/**
 * How an event names a recipient besides its id: the reference the caller wrote when it is one (`contact:<id>`,
 * `contact:<id>:email`, `channel:<id>`, a team member's id), never an address or number written as it is.
 */
export function recipientReference(reference: string): string | undefined {
  if (reference.includes('@')) return undefined;
  if (/^\+?[\d\s().-]{6,}$/.test(reference)) return undefined;
  return reference;
}

/**
 * The data event: an action's create, recorded unless the account turned it off (`action_create`, on by default; docs/audit.md).
 * The action row already says who made it and with which key; every other event is a management event, always
 * recorded.
 */
export const ACTION_CREATE_EVENT = 'action.create';
