import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { openApiDocument } from './document.js';
import {
  ActionCallback,
  AlertWebhookBody,
  CHAIN_CALLBACK_EVENTS,
  ChainCallback,
  contract,
  DestinationTestEvent,
} from './index.js';

type Operation = {
  operationId: string;
  description?: string;
  tags: string[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
};

const doc = openApiDocument();

function routes(router: AppRouter, out: AppRoute[] = []): AppRoute[] {
  for (const value of Object.values(router)) {
    if (isAppRoute(value)) out.push(value);
    else routes(value as AppRouter, out);
  }
  return out;
}

const operationOf = (route: AppRoute) =>
  (doc.paths![route.path.replace(/:([A-Za-z_]+)/g, '{$1}')] as Record<string, Operation>)[
    route.method.toLowerCase()
  ]!;

const issues = (schema: unknown, value: unknown) => {
  const result = (schema as z.ZodType).safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the OpenAPI document', () => {
  it('declares every tag it uses, and every operation has a description and a clean operationId', () => {
    const declared = new Set((doc.tags ?? []).map((t) => t.name));
    const problems: string[] = [];
    for (const route of routes(contract)) {
      const op = operationOf(route);
      expect(declared, op.operationId).toContain(op.tags[0]);
      if (!op.description) problems.push(`${op.operationId}: no description`);
      expect(op.operationId).not.toMatch(/^(\w+)\1$/i);
    }
    expect(problems).toEqual([]);
    expect(Object.keys(doc.components!.schemas!).filter((n) => /InputInput|Input$Input/.test(n))).toEqual([]);
  });

  it('has an example request and response for every operation, each valid against its route schema', () => {
    const problems: string[] = [];
    for (const route of routes(contract)) {
      const op = operationOf(route);
      if ('body' in route && typeof route.body === 'object' && route.body && '~standard' in route.body) {
        const content = op.requestBody?.content ?? {};
        const example = (content['application/json'] ?? Object.values(content)[0])?.example;
        if (example === undefined) problems.push(`${op.operationId}: no request example`);
        else problems.push(...issues(route.body, example).map((i) => `${op.operationId} request ${i}`));
        expect(op.responses['400'], op.operationId).toBeDefined();
      }
      const status = Object.keys(op.responses).find((s) => s.startsWith('2') && op.responses[s]!.content);
      if (!status) continue;
      const media = op.responses[status]!.content!['application/json'];
      if (!media) continue;
      if (media.example === undefined) problems.push(`${op.operationId}: no ${status} example`);
      else
        problems.push(
          ...issues(route.responses[Number(status)], media.example).map(
            (i) => `${op.operationId} ${status} ${i}`,
          ),
        );
    }
    expect(problems).toEqual([]);
  });

  it('lists every callback event, the alert webhook and the test-send under webhooks, with a valid example body', () => {
    const events = [
      ...ActionCallback.options.map((o) => o.shape.event.value),
      ...CHAIN_CALLBACK_EVENTS,
      'alert',
      'sched.test',
    ];
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...events].sort());
    for (const [event, hook] of Object.entries(doc.webhooks!)) {
      const example = (hook.post!.requestBody as Operation['requestBody'])!.content['application/json']!
        .example;
      const schema =
        event === 'alert'
          ? AlertWebhookBody
          : event === 'sched.test'
            ? DestinationTestEvent
            : event.startsWith('chain.')
              ? ChainCallback
              : ActionCallback;
      expect(issues(schema, example), event).toEqual([]);
    }
  });
});
