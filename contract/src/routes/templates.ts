import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, paginated, single, Uuid, ValidationErrorBody } from '../schemas/common.js';
import {
  RegeneratedToken,
  Template,
  TemplateCreateBody,
  TemplateLimits,
  TemplateListQuery,
  TemplateSummary,
  TemplateUpdateBody,
  ToggledTemplate,
  TriggerAnswer,
  TriggerBody,
} from '../schemas/template.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

/** Templates: saved actions and chains with placeholders. */
export const templatesContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/templates',
    body: TemplateCreateBody,
    responses: { 201: single(Template), ...authErrors },
    summary: 'Create a template',
    description:
      'Answers the template with its trigger token and URL in full: the only time they are shown (only a hash is kept). ' +
      'Checked when saved: placeholders used but not declared, URLs no value could make valid, the plan. ' +
      '422 with `errors.templates` past the plan limit (Free 3, Pro 25, Business 100); 403 for a chain template ' +
      'on a plan without chains.',
  },
  list: {
    method: 'GET',
    path: '/v1/templates',
    query: TemplateListQuery,
    responses: { 200: paginated(TemplateSummary), ...authErrors },
    summary: 'List templates',
    description:
      'Newest first, paginated (`page`, `per_page` up to 100); `type` filters action or chain templates. Tokens are masked.',
  },
  limits: {
    method: 'GET',
    path: '/v1/templates/limits',
    responses: { 200: TemplateLimits, ...authErrors },
    summary: 'How many templates the plan allows',
    description: "The account's template count, the plan's maximum and what remains.",
  },
  get: {
    method: 'GET',
    path: '/v1/templates/:id',
    pathParams: idParams,
    responses: { 200: single(Template), 404: ErrorBody, ...authErrors },
    summary: 'Get a template with its trigger statistics',
    description: 'The trigger token and URL are masked: their first characters, then `…`.',
  },
  update: {
    method: 'PUT',
    path: '/v1/templates/:id',
    pathParams: idParams,
    body: TemplateUpdateBody,
    responses: { 200: single(Template), 404: ErrorBody, ...authErrors },
    summary: 'Update a template',
    description:
      'Only the supplied fields change; the template as it then stands is checked whole. The trigger URL stays.',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/templates/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Delete a template',
    description: 'Permanent; its trigger URL answers 404 at once.',
  },
  regenerateToken: {
    method: 'POST',
    path: '/v1/templates/:id/regenerate-token',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: RegeneratedToken, 404: ErrorBody, ...authErrors },
    summary: 'Replace the trigger token',
    description: 'The previous URL answers 404 from this moment.',
  },
  toggleActive: {
    method: 'POST',
    path: '/v1/templates/:id/toggle-active',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 200: ToggledTemplate, 404: ErrorBody, ...authErrors },
    summary: 'Enable or disable a template',
    description: 'While inactive, its trigger URL answers 404.',
  },
});

/**
 * The public trigger. The server serves it outside ts-rest (no Bearer, JSON or an HTML form's body, its own
 * limits); it is here for the OpenAPI document and the SDK's types.
 */
export const triggerContract = c.router({
  trigger: {
    method: 'POST',
    path: '/t/:token',
    pathParams: z.object({ token: z.string() }),
    body: TriggerBody,
    responses: {
      201: TriggerAnswer,
      403: ErrorBody,
      404: ErrorBody,
      422: ValidationErrorBody,
      429: ErrorBody,
    },
    metadata: {
      auth: 'none',
      formBody: true,
      operationId: 'triggerTemplate',
      rateLimits: ['triggerPerIp', 'triggerPerToken'],
    },
    summary: 'Trigger a template (public)',
    description:
      'No Bearer token: the secret token in the path authenticates. The body is a flat object of placeholder values, ' +
      'as JSON or `application/x-www-form-urlencoded` (an HTML form), plus an optional `schedule` (in a form: ' +
      '`schedule.wait`, `schedule.preset`, `schedule.timezone` fields); without one the action runs in about 1 s. ' +
      'Keys that name no placeholder are ignored and listed in `meta.ignored_keys`. 422 for a missing required ' +
      'placeholder or a resolved action that fails validation; 404, the same answer, for unknown, regenerated, ' +
      'deleted or inactive tokens; 403 for a chain template of an account whose plan has no chains. A chain ' +
      'template creates and starts a chain whose `input` holds the values (`schedule` does not apply). ' +
      '60 requests a minute per token and 120 per client IP.',
  },
});
