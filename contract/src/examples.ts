import type { ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';

type Schema = SchemaObject | ReferenceObject;

const FORMAT_EXAMPLES: Record<string, unknown> = {
  uuid: '0b6f3c2e-8d4a-4f1e-9c7b-2a5d6e8f1a3b',
  'date-time': '2030-01-31T09:00:00.000Z',
  date: '2030-01-31',
  uri: 'https://hooks.example.com/orders',
  url: 'https://hooks.example.com/orders',
  email: 'ada@example.com',
};

/** Field names whose plain-string example should read like the thing they hold. */
const NAMED_EXAMPLES: Record<string, unknown> = {
  url: 'https://hooks.example.com/orders',
  callback_url: 'https://hooks.example.com/sched-events',
  email: 'ada@example.com',
  name: 'Order follow-up',
  timezone: 'Europe/Berlin',
  message: 'Ship v2 to production?',
  domain: 'hooks.example.com',
  phone: '+14155550100',
  allowed_origins: 'https://api.example.com',
};

/**
 * An example value for a JSON schema of the document: a field's own `examples` or `default` first, else one made
 * from its type and format. Optional object fields are left out unless they declare an example, so a request
 * example stays the smallest valid one. The contract's tests parse every example with the route's zod schema.
 */
export function exampleFromSchema(
  schema: Schema,
  components: Record<string, SchemaObject>,
  opts: { io: 'input' | 'output' },
  key?: string,
  depth = 0,
): unknown {
  if (depth > 12) return null;
  if ('$ref' in schema && typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)!;
    const target = components[name];
    return target ? exampleFromSchema(target, components, opts, key, depth + 1) : null;
  }
  const s = schema as SchemaObject & { const?: unknown; examples?: unknown[] };
  if (s.examples?.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined && opts.io === 'input') return s.default;
  if (s.enum?.length) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const nonNull = branches.filter((b) => !('type' in b && b.type === 'null'));
    return exampleFromSchema(nonNull[0] ?? branches[0]!, components, opts, key, depth + 1);
  }
  if (s.allOf) {
    return Object.assign(
      {},
      ...s.allOf.map((part) => exampleFromSchema(part, components, opts, key, depth + 1) as object),
    );
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      // A record keyed by an enum (counts by status, say): every required key, each with its value's example.
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        for (const k of s.required ?? []) {
          if (!(k in (s.properties ?? {})))
            out[k] = exampleFromSchema(s.additionalProperties, components, opts, k, depth + 1);
        }
      }
      const required = new Set(s.required ?? []);
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const declares =
          '$ref' in prop ? false : Boolean((prop as { examples?: unknown[] }).examples?.length);
        if (opts.io === 'output' || required.has(name) || declares)
          out[name] = exampleFromSchema(prop, components, opts, name, depth + 1);
      }
      return out;
    }
    case 'array': {
      const items = s.items ?? {};
      const count = Math.max(1, s.minItems ?? 1);
      return Array.from({ length: count }, () => exampleFromSchema(items, components, opts, key, depth + 1));
    }
    case 'integer':
    case 'number': {
      const min = s.minimum ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : undefined);
      return min !== undefined ? Math.max(min, 1) : 1;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string': {
      if (s.format && FORMAT_EXAMPLES[s.format] !== undefined) return FORMAT_EXAMPLES[s.format];
      if (key && NAMED_EXAMPLES[key] !== undefined) return NAMED_EXAMPLES[key];
      return 'string'.padEnd(s.minLength ?? 0, 'x');
    }
    default:
      return {};
  }
}
