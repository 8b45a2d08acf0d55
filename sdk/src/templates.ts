import type {
  Template,
  TemplateCreateBody,
  TemplateLimits,
  TemplateSummary,
  TemplateType,
  TemplateUpdateBody,
  TriggerAnswer,
} from '@sched/contract';
import type { z } from 'zod';
import { callArgs, type RawClient } from './raw.js';
import { collect, paginate, paginatePages } from './pagination.js';
import { type CallOptions, createTransport, type Send } from './transport.js';
import type { Page, Schedule } from './types.js';
import { unwrap } from './unwrap.js';

export interface TemplateListQuery {
  type?: TemplateType;
  page?: number;
  per_page?: number;
}

/** `{ current, max, remaining, plan }`: templates used against the plan's allowance. */
export type TemplateLimitsResult = z.infer<typeof TemplateLimits>;

/** `templates.*`: saved actions and chains with placeholders, fired through a public trigger URL. */
export interface TemplatesApi {
  /** Answers the template with its trigger token and URL in full: keep them, GET shows them masked. */
  create(body: TemplateCreateBody, options?: CallOptions): Promise<Template>;
  list(query?: TemplateListQuery, options?: CallOptions): Promise<Page<TemplateSummary>>;
  /** Every page from `query.page` (default 1). */
  pages(
    query?: TemplateListQuery,
    options?: CallOptions,
  ): AsyncGenerator<Page<TemplateSummary>, void, undefined>;
  /** Every template across all pages, fetched lazily: `for await (const t of sched.templates.iterate())`. */
  iterate(query?: TemplateListQuery, options?: CallOptions): AsyncGenerator<TemplateSummary, void, undefined>;
  listAll(query?: TemplateListQuery, options?: CallOptions): Promise<TemplateSummary[]>;
  get(id: string, options?: CallOptions): Promise<Template>;
  /** Only the given fields change; the trigger URL stays. */
  update(id: string, body: TemplateUpdateBody, options?: CallOptions): Promise<Template>;
  delete(id: string, options?: CallOptions): Promise<void>;
  /** A new token and URL; the old URL answers 404 from now on. */
  regenerateToken(id: string, options?: CallOptions): Promise<{ trigger_token: string; trigger_url: string }>;
  toggleActive(id: string, options?: CallOptions): Promise<{ id: string; is_active: boolean }>;
  limits(options?: CallOptions): Promise<TemplateLimitsResult>;
}

export function templatesApi(raw: RawClient): TemplatesApi {
  const list = async (query: TemplateListQuery = {}, o?: CallOptions): Promise<Page<TemplateSummary>> =>
    unwrap(await raw.templates.list({ query, ...callArgs(o) }), 200);
  const byPage = (o?: CallOptions) => (q: TemplateListQuery) => list(q, o);
  return {
    create: async (body, o) => unwrap(await raw.templates.create({ body, ...callArgs(o) }), 201).data,
    list,
    pages: (query = {}, o) => paginatePages(byPage(o), query),
    iterate: (query = {}, o) => paginate(byPage(o), query),
    listAll: (query = {}, o) => collect(paginate(byPage(o), query)),
    get: async (id, o) => unwrap(await raw.templates.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.templates.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.templates.delete({ params: { id }, ...callArgs(o) }), 204);
    },
    regenerateToken: async (id, o) =>
      unwrap(await raw.templates.regenerateToken({ params: { id }, ...callArgs(o) }), 200).data,
    toggleActive: async (id, o) =>
      unwrap(await raw.templates.toggleActive({ params: { id }, ...callArgs(o) }), 200).data,
    limits: async (o) => unwrap(await raw.templates.limits(callArgs(o)), 200),
  };
}

/** The transport of the standalone functions (`trigger`, `respond`): the defaults of `createClient`. */
let defaultSend: Send | undefined;
export function standaloneSend(): Send {
  defaultSend ??= createTransport();
  return defaultSend;
}

/**
 * Fires a template through its public trigger URL: no API key, the token in the URL authenticates. `values` are
 * the placeholder values; without `schedule` the action runs in about a second. Answers the created action (or
 * chain) and `meta.ignored_keys`; throws `SchedApiError` (404 for a dead token, 422 for a missing value, 429).
 * Not retried: a trigger creates something each time it is called.
 */
export async function trigger(
  url: string,
  values: Record<string, unknown> = {},
  schedule?: Schedule,
  options: CallOptions & { send?: Send } = {},
): Promise<TriggerAnswer> {
  const send = options.send ?? standaloneSend();
  // The origin only in errors: the token is a credential and does not belong in logs.
  const res = await send(
    {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(schedule ? { ...values, schedule } : values),
      idempotent: false,
      signal: options.signal,
    },
    originOf(url),
  );
  return unwrap(res, 201) as TriggerAnswer;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the trigger URL (not a URL)';
  }
}
