import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import {
  type HeaderObject,
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ReferenceObject,
  type ResponseObject,
  type SchemaObject,
} from 'openapi3-ts/oas31';
import { z } from 'zod';
import { exampleFromSchema } from './examples.js';

/** Route metadata understood by the document builder. */
export interface RouteMeta {
  /** `none`: the route needs no Bearer token (health, template trigger, response pages). */
  auth?: 'none';
  /** false: the route carries no rate-limit headers (health probes). */
  rateLimited?: boolean;
  deprecated?: boolean;
  /** Extra text appended to the operation description. */
  notes?: string;
  /** The body may also come as `application/x-www-form-urlencoded` (an HTML form posting straight to the route). */
  formBody?: boolean;
  /** The body's only content type when it is not JSON (a Slack form, a raw MIME message). */
  bodyContentType?: string;
  /** The scope the route needs whatever its method (default: `read` for GET, `write` otherwise). */
  scope?: 'admin';
  /**
   * Limits this route counts besides the caller's own (`authenticated` or `unauthenticated`), in the order they are
   * counted: a key holder's account (`createAction`: the routes that make actions or send them again), or on a
   * public route the client IP (`triggerPerIp`) and the token in the path (`triggerPerToken`). The OpenAPI document
   * shows them as `x-rate-limits`.
   */
  rateLimits?: readonly RouteRateLimit[];
  /** The largest body the route reads, in bytes, when it is not the server's (`x-body-limit` in the document). */
  bodyLimit?: number;
  /** Overrides the `<tag><Key>` operationId (when the key repeats the tag, say). */
  operationId?: string;
  /**
   * Hand-written examples where the one made from the schema would not be valid (rules across fields, such as
   * "exactly one of `wait`, `preset` or `scheduled_for`"). Tests parse every example with the route's schemas.
   */
  example?: { request?: unknown; response?: unknown };
}

/** The per-route limits a route may declare (the server's `domain/rate-limit/policy.ts` defines each). */
export type RouteRateLimit =
  | 'createAction'
  | 'triggerPerIp'
  | 'triggerPerToken'
  | 'reminderResponsePerIp'
  | 'reminderResponse';

/** A top-level tag: the first key of a route's path in the contract. */
export interface TagInfo {
  name: string;
  description: string;
}

type Io = 'input' | 'output';

const COMPONENT_PREFIX = '#/components/schemas/';

/**
 * Turns the ts-rest contract into an OpenAPI 3.1 document. Schemas that carry a zod `id` become named components;
 * when a schema reads differently as input (defaults make fields optional) it gets a second component `<id>Input`.
 */
export function buildOpenApiDocument(
  router: AppRouter,
  info: OpenAPIObject['info'],
  /** Requests the service sends (callbacks), listed as OpenAPI 3.1 `webhooks` by event name. */
  webhooks: Record<string, { summary: string; description?: string; body: unknown }> = {},
  /** Declared tags, in display order; every route's first path key must be one of them. */
  tags: TagInfo[] = [],
): OpenAPIObject {
  const builder = OpenApiBuilder.create({
    openapi: '3.1.0',
    info,
    // Relative: the document describes whichever sched serves it, self-hosted at its own URL.
    servers: [
      {
        url: '/',
        description:
          'Your sched server (its SCHED_PUBLIC_URL); a local `sched serve` listens on http://localhost:8080.',
      },
    ],
    paths: {},
    ...(tags.length ? { tags } : {}),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer sk_...`.',
        },
      },
    },
  });
  const components: Record<string, SchemaObject> = {};

  const toSchema = (
    schema: unknown,
    io: Io,
    where: 'body' | 'parameter' = 'body',
  ): SchemaObject | ReferenceObject => {
    const json = z.toJSONSchema(schema as z.ZodType, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    if (io === 'input' && where === 'body') defaultsIntoDescriptions(json);
    const defs = (json.$defs ?? {}) as Record<string, Record<string, unknown>>;
    delete json.$defs;
    delete json.$schema;
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      names.set(id, componentName(id, def, io));
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) {
          if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
            const id = v.slice('#/$defs/'.length);
            out[k] = COMPONENT_PREFIX + (names.get(id) ?? id);
          } else {
            out[k] = rewrite(v);
          }
        }
        return out;
      }
      return value;
    };
    for (const [id, def] of Object.entries(defs)) {
      components[names.get(id)!] = rewrite(def) as SchemaObject;
    }
    return rewrite(json) as SchemaObject;
  };

  // Output form keeps the plain id; an input form that differs gets the `Input` suffix. A schema whose id already
  // says `...Input` keeps it for its input form, and its output form (defaults filled in) is `...InputResolved`,
  // merged back into the input name at the end when the two read the same.
  const outputForms = new Map<string, string>();
  const componentName = (id: string, def: Record<string, unknown>, io: Io): string => {
    if (id.endsWith('Input')) return io === 'output' ? `${id}Resolved` : id;
    const text = JSON.stringify(def);
    if (io === 'output') {
      outputForms.set(id, text);
      return id;
    }
    const out = outputForms.get(id);
    if (out === undefined || out === text) {
      if (out === undefined) outputForms.set(id, text);
      return id;
    }
    return `${id}Input`;
  };

  const headerComponents: Record<string, HeaderObject> = {
    'X-RateLimit-Limit': {
      schema: { type: 'integer' },
      description: 'Requests allowed in the current window.',
    },
    'X-RateLimit-Remaining': {
      schema: { type: 'integer' },
      description: 'Requests left in the current window.',
    },
    'X-RateLimit-Reset': {
      schema: { type: 'integer' },
      description: 'Unix time (seconds) when the window resets.',
    },
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before trying again.' },
  };
  const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

  const examplesPending: { path: string; method: string; meta: RouteMeta }[] = [];
  // Responses are converted first so that output forms claim the plain component names.
  const routes: { path: string[]; route: AppRoute }[] = [];
  walk(router, [], routes);
  const responsesByRoute = new Map<AppRoute, Record<string, ResponseObject>>();
  for (const { route } of routes) {
    const rateLimited = ((route.metadata ?? {}) as RouteMeta).rateLimited !== false;
    const responses: Record<string, ResponseObject> = {};
    for (const [status, schema] of Object.entries(route.responses)) {
      const description = STATUS_TEXT[status] ?? `Status ${status}`;
      const headers: Record<string, ReferenceObject> = {};
      if (rateLimited) {
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
          headers[name] = headerRef(name);
        if (status === '429') headers['Retry-After'] = headerRef('Retry-After');
      }
      const withHeaders = Object.keys(headers).length ? { headers } : {};
      responses[status] = isSchema(schema)
        ? {
            description,
            ...withHeaders,
            content: { 'application/json': { schema: toSchema(schema, 'output') } },
          }
        : { description, ...withHeaders };
    }
    responsesByRoute.set(route, responses);
  }

  for (const { path, route } of routes) {
    const meta = (route.metadata ?? {}) as RouteMeta;
    const parameters: ParameterObject[] = [];
    for (const [where, schema] of [
      ['path', route.pathParams],
      ['query', route.query],
    ] as const) {
      if (!isSchema(schema)) continue;
      const json = toSchema(schema, 'input', 'parameter') as SchemaObject;
      const required = new Set((json.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries(json.properties ?? {})) {
        const p = prop as SchemaObject;
        parameters.push({
          name,
          in: where,
          required: where === 'path' || required.has(name),
          ...(p.description ? { description: p.description } : {}),
          ...(p.deprecated ? { deprecated: true } : {}),
          schema: p,
        });
      }
    }
    const operation: OperationObject = {
      operationId: meta.operationId ?? operationId(path),
      tags: [path[0]!],
      summary: route.summary ?? operationId(path),
      ...(route.description || meta.notes
        ? { description: [route.description, meta.notes].filter(Boolean).join('\n\n') }
        : {}),
      ...(route.deprecated || meta.deprecated ? { deprecated: true } : {}),
      ...(parameters.length ? { parameters } : {}),
      responses: responsesByRoute.get(route)!,
      security: meta.auth === 'none' ? [] : [{ bearerAuth: [] }],
      ...(meta.rateLimits?.length ? { 'x-rate-limits': [...meta.rateLimits] } : {}),
      ...(meta.bodyLimit ? { 'x-body-limit': meta.bodyLimit } : {}),
    };
    if ('body' in route && isSchema(route.body)) {
      const schema = toSchema(route.body, 'input');
      operation.responses = sortKeys({
        '400': {
          description: 'Malformed request: the body is not valid JSON (or not of the declared content type)',
          content: { 'application/json': { schema: { $ref: `${COMPONENT_PREFIX}Error` } } },
        },
        ...operation.responses,
      });
      operation.requestBody = {
        required: true,
        content: meta.bodyContentType
          ? { [meta.bodyContentType]: { schema } }
          : {
              'application/json': { schema },
              ...(meta.formBody ? { 'application/x-www-form-urlencoded': { schema } } : {}),
            },
      };
    }
    const openApiPath = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    builder.addPath(openApiPath, { [route.method.toLowerCase()]: operation });
    examplesPending.push({ path: openApiPath, method: route.method.toLowerCase(), meta });
  }

  for (const [event, hook] of Object.entries(webhooks)) {
    builder.addWebhook(event, {
      post: {
        operationId: event.replace(/\.(\w)/g, (_m, c: string) => c.toUpperCase()),
        summary: hook.summary,
        ...(hook.description ? { description: hook.description } : {}),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: toSchema(hook.body, 'output') } },
        },
        responses: { '200': { description: 'Any 2xx acknowledges; see docs/callbacks.md for retries.' } },
        // The receiver authenticates the request by its signature (docs/signatures.md), not by a scheme of ours.
        security: [],
      },
    });
  }

  let doc = builder.getSpec();
  doc.components = {
    ...doc.components,
    headers: headerComponents,
    schemas: sortKeys(referencedOnly(components, doc)),
  };
  doc = mergeResolvedForms(doc);
  explicitRequiredKeys(doc);
  const schemas = doc.components!.schemas as Record<string, SchemaObject>;
  for (const { path, method, meta } of examplesPending) {
    addExamples((doc.paths![path] as Record<string, OperationObject>)[method]!, meta, schemas);
  }
  for (const hook of Object.values(doc.webhooks ?? {})) {
    const media = (
      hook.post?.requestBody as
        | { content: Record<string, { schema: SchemaObject; example?: unknown }> }
        | undefined
    )?.content['application/json'];
    if (media) media.example = exampleFromSchema(media.schema, schemas, { io: 'output' });
  }
  return doc;
}

/**
 * A field with a default is optional to send, but openapi-typescript (7, by default) reads `default` on a named
 * schema as "always present" and makes the field required in request types too. Request schemas therefore state
 * their defaults in words ("Default: `POST`.") instead of the keyword; answers always carry the field.
 */
function defaultsIntoDescriptions(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) defaultsIntoDescriptions(item);
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  // Only schema positions are walked (never a `properties` map itself), so `default` here is the keyword.
  if ('default' in s) {
    const note = `Default: \`${JSON.stringify(s.default)}\`.`;
    s.description = s.description ? `${s.description as string} ${note}` : note;
    delete s.default;
  }
  for (const key of ['properties', '$defs']) {
    for (const child of Object.values((s[key] as Record<string, unknown> | undefined) ?? {}))
      defaultsIntoDescriptions(child);
  }
  for (const key of ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not']) {
    defaultsIntoDescriptions(s[key]);
  }
}

/** Writes an example for the JSON request body and for each 2xx JSON answer of an operation. */
function addExamples(
  operation: OperationObject,
  meta: RouteMeta,
  schemas: Record<string, SchemaObject>,
): void {
  const body = (
    operation.requestBody as { content?: Record<string, { schema: SchemaObject; example?: unknown }> }
  )?.content;
  // JSON, or the one content type of a body that is not (`bodyContentType`).
  const media = body?.['application/json'] ?? (body ? Object.values(body)[0] : undefined);
  if (media)
    media.example = meta.example?.request ?? exampleFromSchema(media.schema, schemas, { io: 'input' });
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const media = status.startsWith('2')
      ? (response as ResponseObject).content?.['application/json']
      : undefined;
    if (!media?.schema) continue;
    media.example =
      (status !== '200' || !('201' in operation.responses!) ? meta.example?.response : undefined) ??
      exampleFromSchema(media.schema, schemas, { io: 'output' });
  }
}

/**
 * A record keyed by an enum (`z.record(ActionStatus, z.number())`) becomes `required` names with no `properties`;
 * validators and linters (Redocly's no-required-schema-properties-undefined) want each required name declared, so
 * each gets the record's value schema.
 */
function explicitRequiredKeys(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) explicitRequiredKeys(item);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const s = value as Record<string, unknown>;
  const values = s.additionalProperties;
  if (Array.isArray(s.required) && values && typeof values === 'object') {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    for (const name of s.required as string[]) if (!(name in properties)) properties[name] = values;
    s.properties = properties;
  }
  for (const child of Object.values(s)) explicitRequiredKeys(child);
}

/** `XInputResolved` (the output form of a schema named `XInput`) becomes `XInput` wherever the two are the same. */
function mergeResolvedForms(doc: OpenAPIObject): OpenAPIObject {
  const schemas = doc.components?.schemas ?? {};
  let text = JSON.stringify(doc);
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('InputResolved')) continue;
    const base = name.slice(0, -'Resolved'.length);
    if (schemas[base] !== undefined && JSON.stringify(schemas[base]) !== JSON.stringify(schemas[name]))
      continue;
    text = text.replaceAll(`"${COMPONENT_PREFIX}${name}"`, `"${COMPONENT_PREFIX}${base}"`);
    if (schemas[base] === undefined) {
      // Only the output form is used: it takes the plain name.
      text = text.replace(`"${name}":`, `"${base}":`);
    }
  }
  const merged = JSON.parse(text) as OpenAPIObject;
  merged.components!.schemas = sortKeys(
    referencedOnly(merged.components!.schemas as Record<string, SchemaObject>, merged),
  );
  return merged;
}

/**
 * The named schemas some path, webhook or other used schema refers to: a schema named for reuse but always
 * inlined by its parent (a member of a preprocessed union, say) would otherwise sit unused in the document.
 */
function referencedOnly<S>(schemas: Record<string, S>, doc: OpenAPIObject): Record<string, S> {
  const refs = (value: unknown) =>
    [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] as string);
  const used = new Set<string>();
  const pending = refs({ paths: doc.paths, webhooks: doc.webhooks });
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refs(schemas[name] ?? null));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

function walk(router: AppRouter, prefix: string[], out: { path: string[]; route: AppRoute }[]): void {
  for (const [key, value] of Object.entries(router)) {
    if (isAppRoute(value)) out.push({ path: [...prefix, key], route: value });
    else walk(value as AppRouter, [...prefix, key], out);
  }
}

function operationId(path: string[]): string {
  return path.map((part, i) => (i === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join('');
}

function isSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No Content',
  '400': 'Malformed request',
  '401': 'Missing or invalid API key',
  '403': 'The API key lacks the scope this endpoint needs',
  '404': 'Not found (also for resources of another account)',
  '409': 'Conflict with the resource state',
  '410': 'Gone',
  '413': 'Request body too large',
  '422': 'Validation failed',
  '429': 'Rate limit exceeded',
  '503': 'Not ready',
};
