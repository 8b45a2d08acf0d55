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
import type { createRawClient } from './client.js';
import { SchedConnectionError } from './errors.js';
import type { Page, Schedule } from './types.js';
import { unwrap } from './unwrap.js';

type RawClient = ReturnType<typeof createRawClient>;

export interface TemplateListQuery {
  type?: TemplateType;
  page?: number;
  per_page?: number;
}

/** `templates.*`: saved actions and chains with placeholders (spec 4.3). */
export function templatesApi(raw: RawClient) {
  return {
    /** Answers the template with its trigger token and URL in full: keep them, GET shows them masked. */
    create: async (body: TemplateCreateBody): Promise<Template> =>
      unwrap(await raw.templates.create({ body }), 201).data,
    list: async (query: TemplateListQuery = {}): Promise<Page<TemplateSummary>> =>
      unwrap(await raw.templates.list({ query }), 200),
    get: async (id: string): Promise<Template> =>
      unwrap(await raw.templates.get({ params: { id } }), 200).data,
    /** Only the given fields change; the trigger URL stays. */
    update: async (id: string, body: TemplateUpdateBody): Promise<Template> =>
      unwrap(await raw.templates.update({ params: { id }, body }), 200).data,
    delete: async (id: string): Promise<void> => {
      unwrap(await raw.templates.delete({ params: { id } }), 204);
    },
    /** A new token and URL; the old URL answers 404 from now on. */
    regenerateToken: async (id: string): Promise<{ trigger_token: string; trigger_url: string }> =>
      unwrap(await raw.templates.regenerateToken({ params: { id } }), 200).data,
    toggleActive: async (id: string): Promise<{ id: string; is_active: boolean }> =>
      unwrap(await raw.templates.toggleActive({ params: { id } }), 200).data,
    limits: async (): Promise<z.infer<typeof TemplateLimits>> => unwrap(await raw.templates.limits(), 200),
  };
}

/**
 * Fires a template through its public trigger URL: no API key, the token in the URL authenticates. `values` are
 * the placeholder values; without `schedule` the action runs in about a second. Answers the created action (or
 * chain) and `meta.ignored_keys`; throws `SchedApiError` (404 for a dead token, 422 for a missing value, 429).
 */
export async function trigger(
  url: string,
  values: Record<string, unknown> = {},
  schedule?: Schedule,
): Promise<TriggerAnswer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(schedule ? { ...values, schedule } : values),
    });
    text = await res.text();
  } catch (err) {
    // The origin only: the token is a credential and does not belong in logs.
    throw new SchedConnectionError(`cannot reach ${originOf(url)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('application/json') && text) parsed = JSON.parse(text);
  return unwrap({ status: res.status, body: parsed, headers: res.headers }, 201);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the trigger URL (not a URL)';
  }
}
