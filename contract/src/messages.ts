import type { z } from 'zod';

/*
 * One voice for validation messages. The contract's own texts ("must use https", "must be a whole number followed
 * by s, m, h, d or w") are written on the schemas; this map words every issue that has none, instead of zod's
 * default English ("Too big: expected number to be <=20"). Install it with `z.config({ customError: issueMessage })`
 * where messages are shown to people (the server does at start); a message a schema sets still wins.
 */

type RawIssue = Parameters<z.core.$ZodErrorMap>[0];

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  bigint: 'a whole number',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  tuple: 'a list',
  date: 'a date',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  guid: 'a UUID',
  datetime: 'an ISO 8601 date-time such as 2030-01-31T09:00:00Z',
  date: 'a date such as 2030-01-31',
  time: 'a time such as 09:00',
  duration: 'an ISO 8601 duration',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  base64: 'base64',
  base64url: 'base64url',
  e164: 'an E.164 phone number such as +15551234567',
};

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

function oneOf(values: readonly unknown[]): string {
  if (values.length === 1) return `must be ${quote(values[0])}`;
  return `must be one of ${values.map(quote).join(', ')}`;
}

function sizeOf(
  origin: string,
  n: number | bigint,
  exact: boolean | undefined,
  bound: 'most' | 'least',
): string {
  const count = Number(n);
  const unit =
    origin === 'string'
      ? `character${count === 1 ? '' : 's'}`
      : origin === 'array' || origin === 'set'
        ? `item${count === 1 ? '' : 's'}`
        : origin === 'file'
          ? `byte${count === 1 ? '' : 's'}`
          : '';
  if (exact) return unit ? `must have exactly ${n} ${unit}` : `must be exactly ${n}`;
  return unit ? `must have at ${bound} ${n} ${unit}` : `must be at ${bound} ${n}`;
}

/** A sentence for one schema issue, in the voice of the contract's own messages ("must ..."). */
export function issueMessage(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'never') return 'is not allowed here';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    }
    case 'too_big': {
      if (issue.origin === 'date') return `must be no later than ${String(issue.maximum)}`;
      if (issue.inclusive === false && !['string', 'array', 'set', 'file'].includes(issue.origin))
        return `must be less than ${issue.maximum}`;
      return sizeOf(issue.origin, issue.maximum, issue.exact, 'most');
    }
    case 'too_small': {
      if (issue.origin === 'date') return `must be no earlier than ${String(issue.minimum)}`;
      const n = Number(issue.minimum);
      if (
        (issue.origin === 'string' || issue.origin === 'array' || issue.origin === 'set') &&
        n === 1 &&
        !issue.exact
      )
        return 'must not be empty';
      if (issue.inclusive === false && !['string', 'array', 'set', 'file'].includes(issue.origin))
        return `must be greater than ${issue.minimum}`;
      return sizeOf(issue.origin, issue.minimum, issue.exact, 'least');
    }
    case 'invalid_format': {
      const f = issue.format;
      if (f === 'starts_with') return `must start with ${quote((issue as { prefix?: string }).prefix)}`;
      if (f === 'ends_with') return `must end with ${quote((issue as { suffix?: string }).suffix)}`;
      if (f === 'includes') return `must contain ${quote((issue as { includes?: string }).includes)}`;
      if (f === 'regex') return 'has an invalid format';
      return `must be ${FORMAT_NAMES[f] ?? `a valid ${f}`}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map(quote).join(', ')}`;
    case 'invalid_value':
      return oneOf(issue.values);
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      const discriminator = (issue as { discriminator?: string }).discriminator;
      if (discriminator && options?.length) return `${discriminator} ${oneOf(options)}`;
      return 'does not match any of the accepted forms';
    }
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    default:
      return 'is invalid';
  }
}
