import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract } from '@sched/contract';
import { isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';

/**
 * Every status a handler can answer must be in its contract route's `responses` (so the OpenAPI document and the
 * SDK's types know it). Read from the sources: the literal statuses of each handler, and the typed errors
 * (`new XError(`) its use case throws, directly or through `this.helper(` calls of the same class, mapped to their
 * status through the `super(<status>` of each AppError subclass. A heuristic over the text, kept strict: a use-case
 * method it cannot find fails the test rather than passing silently.
 */

const serverSrc = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(path, 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The text of the block that starts at the first `{` at or after `from`, braces balanced. */
function blockAt(text: string, from: number): string {
  const open = text.indexOf('{', from);
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    else if (text[i] === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(open, i + 1);
    }
  }
  return text.slice(open);
}

/** AppError subclass → status, from `class X extends Y` and `super(<3 digits>`. */
function errorStatuses(): Map<string, number> {
  const parents = new Map<string, string>();
  const own = new Map<string, number>();
  for (const file of filesUnder(join(serverSrc, 'app'))) {
    const text = read(file);
    for (const m of text.matchAll(/class (\w+) extends (\w+)/g)) {
      parents.set(m[1]!, m[2]!);
      const status = /super\(\s*(\d{3})/.exec(blockAt(text, m.index))?.[1];
      if (status) own.set(m[1]!, Number(status));
    }
  }
  const statusOf = (name: string): number | undefined =>
    own.get(name) ?? (parents.has(name) ? statusOf(parents.get(name)!) : undefined);
  return new Map([...parents.keys()].map((n) => [n, statusOf(n)!] as const).filter(([, s]) => s));
}

/** Every method body of the app layer, by `ClassName.method`. */
function methodBodies(): Map<string, { body: string; cls: string }> {
  const out = new Map<string, { body: string; cls: string }>();
  for (const file of filesUnder(join(serverSrc, 'app'))) {
    const text = read(file);
    for (const c of text.matchAll(/export class (\w+)/g)) {
      // Formatted code: a class ends at the first `}` in column 0, a member at the first `}` in column 2.
      const end = text.indexOf('\n}', c.index);
      const cls = text.slice(c.index, end < 0 ? text.length : end);
      for (const m of cls.matchAll(/^ {2}(?:private |protected )?(?:async )?(\w+)\s*(?:<[^>]*>)?\(/gm)) {
        const close = cls.indexOf('\n  }', m.index);
        out.set(`${c[1]}.${m[1]}`, { body: cls.slice(m.index, close < 0 ? cls.length : close), cls: c[1]! });
      }
    }
  }
  return out;
}

/** Statuses a use-case method can throw, following `this.x(` calls inside its class. */
function thrownStatuses(
  key: string,
  methods: Map<string, { body: string; cls: string }>,
  errors: Map<string, number>,
  seen = new Set<string>(),
): Set<number> {
  const out = new Set<number>();
  const method = methods.get(key);
  if (!method || seen.has(key)) return out;
  seen.add(key);
  for (const m of method.body.matchAll(/new (\w+Error)\(/g)) {
    const status = errors.get(m[1]!);
    if (status) out.add(status);
  }
  for (const m of method.body.matchAll(/this\.(\w+)\(/g)) {
    for (const s of thrownStatuses(`${method.cls}.${m[1]}`, methods, errors, seen)) out.add(s);
  }
  return out;
}

/** `{ group: { route: handler text } }` from the handler files: `name: async (...) => ...` up to the next one. */
function handlerTexts(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of filesUnder(join(serverSrc, 'http', 'handlers'))) {
    const text = read(file);
    for (const router of text.matchAll(/s\.router\(contract\.(\w+), \{/g)) {
      const body = blockAt(text, router.index + router[0].length - 1);
      const starts = [...body.matchAll(/^ {4}(\w+): async/gm)];
      starts.forEach((m, i) => {
        out.set(`${router[1]}.${m[1]}`, body.slice(m.index, starts[i + 1]?.index ?? body.length));
      });
    }
  }
  return out;
}

/** Which service class a handler group's parameter is (`actions: ActionService`, also one of several). */
function serviceClasses(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of filesUnder(join(serverSrc, 'http', 'handlers'))) {
    // A signature biome wraps puts each parameter on its own line.
    for (const m of read(file).matchAll(/[(,]\s*(\w+): (\w+)(?=[,)])/g)) out.set(m[1]!, m[2]!);
  }
  return out;
}

function contractRoutes(): Map<string, { responses: Record<number, unknown>; auth: boolean; body: boolean }> {
  const out = new Map<string, { responses: Record<number, unknown>; auth: boolean; body: boolean }>();
  const walk = (node: unknown, path: string[]) => {
    if (isAppRoute(node as never)) {
      const route = node as unknown as {
        responses: Record<number, unknown>;
        metadata?: { auth?: string };
        method: string;
        body?: unknown;
      };
      out.set(path.join('.'), {
        responses: route.responses,
        auth: route.metadata?.auth !== 'none',
        body: route.method !== 'GET',
      });
      return;
    }
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) walk(v, [...path, k]);
  };
  walk(contract, []);
  return out;
}

/**
 * Statuses the scan finds but that cannot happen, each with its reason. `cancelRow` answers 409 for a state that
 * cannot be cancelled, but these callers hand it only rows they found cancellable under the row lock.
 */
const UNREACHABLE: Record<string, number[]> = {
  'actions.create': [409],
  // The same decisions as the single create (skipOrReplace).
  'actions.createMany': [409],
  // The chain is read back (`this.view`, 404 when absent) in the transaction that just inserted it.
  'chains.create': [404],
  'actions.cancelByCoordinationKey': [409],
};

describe('statuses declared in the contract', () => {
  const routes = contractRoutes();
  const errors = errorStatuses();
  const methods = methodBodies();
  const services = serviceClasses();

  it('knows the typed errors', () => {
    expect(errors.get('NotFoundError')).toBe(404);
    expect(errors.get('ConflictError')).toBe(409);
    expect(errors.get('QuotaExceededError')).toBe(403);
  });

  for (const [key, handler] of handlerTexts()) {
    it(`${key}: every status its handler and use case can give is declared`, () => {
      const route = routes.get(key);
      expect(route, `no contract route ${key}`).toBeDefined();
      const statuses = new Set([...handler.matchAll(/status: (\d{3})/g)].map((m) => Number(m[1])));
      const calls = [...handler.matchAll(/await (\w+)\.(\w+)\(/g)];
      for (const [, param, method] of calls) {
        const cls = services.get(param!);
        expect(methods.has(`${cls}.${method}`), `use case ${cls}.${method} not found`).toBe(true);
        for (const s of thrownStatuses(`${cls}.${method}`, methods, errors)) statuses.add(s);
      }
      // The edge answers these for any authenticated route: the hook and the request validation.
      if (route!.auth) for (const s of [401, 403, 429]) statuses.add(s);
      for (const s of UNREACHABLE[key] ?? []) statuses.delete(s);
      const declared = Object.keys(route!.responses).map(Number);
      expect([...statuses].filter((s) => !declared.includes(s)).sort()).toEqual([]);
    });
  }

  it('POST /r/{token} declares the answers of the response service', () => {
    const respond = routes.get('responses.respond')!;
    const thrown = thrownStatuses('ResponseService.respond', methods, errors);
    expect(thrown.size).toBeGreaterThan(0);
    const declared = Object.keys(respond.responses).map(Number);
    expect([...thrown, 429].filter((s) => !declared.includes(s)).sort()).toEqual([]);
  });
});
