import { initContract } from '@ts-rest/core';
import { initServer } from '@ts-rest/fastify';
import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RateLimitName } from '../domain/rate-limit/policy.js';
import {
  contractMounter,
  declaredRouteLimits,
  publicRouteRules,
  registerDraining,
  registerResponseHooks,
  unmountedRoutes,
} from './hooks.js';

const c = initContract();
const ok = { 200: z.object({ ok: z.boolean() }) };
const part = c.router({
  probe: { method: 'GET', path: '/probe', responses: ok, metadata: { auth: 'none' } },
  keys: { method: 'GET', path: '/v1/keys', responses: ok, metadata: { scope: 'admin' } },
  make: {
    method: 'POST',
    path: '/v1/things/:id/make',
    body: c.noBody(),
    responses: ok,
    metadata: { rateLimits: ['createAction'] },
  },
  link: {
    method: 'GET',
    path: '/l/:token',
    responses: ok,
    metadata: { auth: 'none', rateLimits: ['triggerPerIp', 'triggerPerToken'] },
  },
});
const other = c.router({ list: { method: 'GET', path: '/v1/others', responses: ok } });

// A contract part is mounted behind what its routes declare (RouteMeta), never behind their URL's spelling.
describe('mounting a part of the contract', () => {
  async function mounted() {
    const seen: { url: string; gate: string; limits: RateLimitName[] }[] = [];
    const record = (request: FastifyRequest, gate: string) =>
      seen.push({ url: request.url, gate, limits: declaredRouteLimits(request) });
    const app = Fastify();
    const mount = contractMounter(app, {
      auth: async (request, _reply, scope) => void record(request, `auth:${scope ?? 'method'}`),
      probeLimit: (request) => void record(request, 'probe'),
      validateResponses: true,
    });
    const s = initServer();
    const handle = async () => ({ status: 200 as const, body: { ok: true } });
    await mount(part, s.router(part, { probe: handle, keys: handle, make: handle, link: handle }));
    return { app, seen };
  }

  it('gates each route by its metadata: public probes, a declared scope, declared extra limits', async () => {
    const { app, seen } = await mounted();
    for (const [method, url] of [
      ['GET', '/probe'],
      ['GET', '/v1/keys'],
      ['POST', '/v%31/things/7/make'],
    ] as const)
      expect((await app.inject({ method, url })).statusCode).toBe(200);
    expect(seen).toEqual([
      { url: '/probe', gate: 'probe', limits: [] },
      { url: '/v1/keys', gate: 'auth:admin', limits: [] },
      { url: '/v%31/things/7/make', gate: 'auth:method', limits: ['createAction'] },
    ]);
  });

  it('lists the routes of a contract no part mounted', async () => {
    const { app } = await mounted();
    expect(unmountedRoutes(app, { part, other })).toEqual(['GET /v1/others']);
    expect(unmountedRoutes(app, { part })).toEqual([]);
  });

  it("counts a public route's declared limits on the client IP and the path's token, in the declared order", () => {
    expect(publicRouteRules(part.link, { ip: '203.0.113.7', token: 'hashed' }, 2)).toMatchObject([
      { name: 'triggerPerIp', subject: '203.0.113.7' },
      { name: 'triggerPerToken', subject: 'hashed' },
    ]);
    expect(publicRouteRules(part.probe, { ip: 'ip', token: 't' }, 1)).toEqual([]);
    // A key holder's limit is counted by authentication, never on a public caller.
    expect(() => publicRouteRules(part.make, { ip: 'ip', token: 't' }, 1)).toThrow(/key holder/);
  });
});

describe('the hooks every request passes', () => {
  it('sets the headers every answer carries and observes each answer, the draining hook letting it through', async () => {
    const app = Fastify();
    const observed: [string, string | undefined, number][] = [];
    registerDraining(app);
    registerResponseHooks(app, (method, route, status) => observed.push([method, route, status]));
    app.get('/now', async () => ({ ok: true }));
    app.get('/text', async (_request, reply) => reply.type('text/plain').send('ok'));
    await app.ready();

    const json = await app.inject({ method: 'GET', url: '/now' });
    expect(json.statusCode).toBe(200);
    expect(json.headers).toMatchObject({
      'x-request-id': expect.any(String),
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    const text = await app.inject({ method: 'GET', url: '/text' });
    expect(text.body).toBe('ok');
    expect(text.headers['cache-control']).toBeUndefined();
    expect(observed).toEqual([
      ['GET', '/now', 200],
      ['GET', '/text', 200],
    ]);
    await app.close();
  });
});
