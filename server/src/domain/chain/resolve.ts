/**
 * What a step becomes when it starts: its condition read and its fields interpolated against the chain's input
 * and the results of the steps before it. Pure; the engine persists and schedules the result. Any
 * ExpressionError thrown here makes the step settle as `not_run` with `expressionFailure(error)` as its error.
 */
import { wellFormed } from '../text/well-formed.js';
import { type ChainContext, type GateInput, jsonDepth, MAX_JSON_DEPTH } from '@sched/contract';
import { parseDuration } from '../schedule/duration.js';
import { evaluateCondition } from '../expressions/condition.js';
import { ExpressionError } from '../expressions/errors.js';
import {
  interpolate,
  interpolateHeaderValue,
  interpolateString,
  type Scope,
} from '../expressions/interpolate.js';
import { interpolateUrl } from '../expressions/url.js';
import type { DelayStepParsed, GatedStepParsed, HttpCallStepParsed } from './definition.js';

/** The scope a step reads: the chain's input and `context.steps` (settled steps only). */
export function chainScope(input: Readonly<Record<string, unknown>>, context: ChainContext): Scope {
  return { input, steps: context.steps };
}

/** Runs `resolve` with `field` added in front of the path of any ExpressionError, so the message can say where. */
function at<T>(field: string | number, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof ExpressionError) error.path.unshift(field);
    throw error;
  }
}

/** A step without a condition always runs. */
export function conditionHolds(condition: string | undefined, scope: Scope): boolean {
  return condition === undefined ? true : at('condition', () => evaluateCondition(condition, scope));
}

export interface ResolvedRequest {
  /** Interpolated, not yet checked: the SSRF guard and the https rule apply to it when it is used. */
  url: string;
  method: HttpCallStepParsed['method'];
  headers: Record<string, string>;
  body: unknown;
}

/**
 * URL and header values always come out as strings; the body keeps the JSON types of whole-value expressions.
 * `inputIsOwners`: the chain's input is its owner's (created through the API), so `{{input.*}}` may write an origin
 * without allowed_origins; a chain a template's trigger made reads a stranger's values, checked like a step response.
 */
export function resolveHttpCall(
  step: HttpCallStepParsed,
  scope: Scope,
  inputIsOwners: boolean,
): ResolvedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.headers)) {
    headers[name] = at('headers', () => at(name, () => interpolateHeaderValue(value, scope)));
  }
  return {
    // By component: a value can change neither the origin (unless allowed_origins) nor the path's structure.
    url: at('url', () =>
      interpolateUrl(step.url, scope, step.allowed_origins ?? [], (e) => inputIsOwners && e.kind === 'input'),
    ),
    method: step.method,
    headers,
    body: step.body === undefined ? undefined : at('body', () => interpolate(step.body, scope)),
  };
}

/** The gate with its message and recipients interpolated (recipients are then checked like an action's). */
export function interpolateGate(step: GatedStepParsed, scope: Scope): GateInput {
  const { gate } = step;
  return {
    ...gate,
    message: at('gate', () => at('message', () => interpolateString(gate.message, scope))),
    recipients: gate.recipients.map((recipient, i) =>
      at('gate', () => at('recipients', () => at(i, () => interpolateString(recipient, scope)))),
    ),
  };
}

/** The wait of a delay step in ms (`delay`, or its alias `wait`); the schema guarantees exactly one is there. */
export function delayMs(step: DelayStepParsed): number {
  const text = step.delay ?? step.wait;
  const ms = text === undefined ? null : parseDuration(text);
  if (ms === null) throw new RangeError(`step "${step.name}" has no valid delay`);
  return ms;
}

/**
 * What `{{steps.N.response}}` holds for a response body: the parsed JSON when the body parses as JSON (whatever
 * its content type claims) and nests at most MAX_JSON_DEPTH levels, else the text itself; null for an empty body or
 * none (a gate, a wait, a skipped step). The bound keeps a responder's deep JSON from breaking what is later
 * written from it (callback payloads, views), which would leave the step due forever.
 */
export function stepResponse(body: string | null | undefined): unknown {
  if (body === null || body === undefined || body.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return body;
  }
  // A responder's `\ud800` would otherwise break the URL encoding, jsonb and callbacks made from it, every retry.
  return jsonDepth(parsed) > MAX_JSON_DEPTH ? body : wellFormed(parsed);
}

/** The step's `error` text for an expression that failed: where, then what (`body.items.0: {{...}} has no value...`). */
export function expressionFailure(error: ExpressionError): string {
  return error.path.length === 0 ? error.message : `${error.dottedPath}: ${error.message}`;
}
