/**
 * Checks of a chain's steps at create time, beyond the contract's schema: conditions parse, expressions are
 * well-formed, read only earlier steps, and read input (or placeholders) that exist. The answer is the 422
 * `errors` map, keyed by dotted paths such as `steps.3.condition` or `steps.0.body.items.0`.
 */
import type { ChainStepParsed } from '@sched/contract';
import { conditionExpressions, parseCondition } from '../expressions/condition.js';
import { ExpressionError } from '../expressions/errors.js';
import { lookupPath } from '../expressions/interpolate.js';
import { type Expression, type FoundExpression, listExpressions } from '../expressions/syntax.js';
import {
  ORIGIN_EXPRESSION_NEEDS_ALLOWLIST,
  urlExpressionComponents,
  urlTemplateProblem,
} from '../expressions/url.js';
import { parseDuration } from '../schedule/duration.js';
import { stepTypeAlias } from './states.js';

export type ValidationErrors = Record<string, string[]>;

export type HttpCallStepParsed = Extract<ChainStepParsed, { type: 'http_call' | 'webhook' }>;
export type GatedStepParsed = Extract<ChainStepParsed, { type: 'gated' | 'approval' }>;
export type DelayStepParsed = Extract<ChainStepParsed, { type: 'delay' | 'wait' }>;

/**
 * The fields of a step that are interpolated when it starts (besides its condition): URL, header values and body
 * of an HTTP call; message and recipients of a gate. Anything else is taken literally.
 */
function interpolatedFields(step: ChainStepParsed): [field: string, value: unknown][] {
  switch (stepTypeAlias(step.type)) {
    case 'webhook': {
      const http = step as HttpCallStepParsed;
      return [
        ['url', http.url],
        ['headers', http.headers],
        ['body', http.body],
      ];
    }
    case 'approval': {
      const { gate } = step as GatedStepParsed;
      return [
        ['gate.message', gate.message],
        ['gate.recipients', gate.recipients],
      ];
    }
    case 'wait':
      return [];
  }
}

export interface ExpressionRules {
  /** A chain's input: `{{input.a.b}}` must find a value in it (input never changes after create). */
  input?: unknown;
  /** A chain template's declared placeholders: `{{name}}` and `{{input.name}}` must name one of them. */
  placeholders?: ReadonlySet<string>;
  /** The URL schemes the destination policy allows (`['https:']`); given, a URL that could never use one is refused. */
  urlSchemes?: readonly string[];
  /** The input came from a template's trigger, not from the owner: `{{input.*}}` in an origin needs allowed_origins. */
  triggeredInput?: boolean;
}

/** Why an expression cannot be used in step `index`, or null when it can. */
function expressionProblem(expression: Expression, index: number, rules: ExpressionRules): string | null {
  const shown = `{{${expression.source}}}`;
  switch (expression.kind) {
    case 'placeholder':
      if (rules.placeholders === undefined) {
        return `${shown} is not an expression of chains: use {{input.<field>}}, {{steps.N.response...}} or {{steps.N.status}}`;
      }
      return rules.placeholders.has(expression.name) ? null : `${shown} is not a declared placeholder`;
    case 'input': {
      const [first] = expression.path;
      if (rules.placeholders !== undefined) {
        return first === undefined || rules.placeholders.has(first)
          ? null
          : `${shown} is not a declared placeholder`;
      }
      if (rules.input === undefined || lookupPath(rules.input, expression.path).found) return null;
      return `${shown} reads a value the chain's input does not have`;
    }
    case 'step_status':
    case 'step_response':
      return expression.step < index
        ? null
        : `${shown} reads step ${expression.step}, which has not run when step ${index} starts`;
  }
}

/**
 * Whether a step URL's scheme or host depends on a value nobody vetted (such a URL may only go to allowed origins): a step response (a third party
 * answers it) or, in a chain template or a chain its trigger made, a trigger value. The input of a chain created
 * through the API is the owner's own and known at create, so `{{input.*}}` there needs no allowlist.
 */
function originNeedsAllowlist(url: string, rules: ExpressionRules): boolean {
  let found: ReturnType<typeof urlExpressionComponents>;
  try {
    found = urlExpressionComponents(url);
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
  return found.some(
    (f) =>
      f.component === 'origin' &&
      (rules.placeholders !== undefined ||
        rules.triggeredInput === true ||
        f.expression.expression.kind !== 'input'),
  );
}

/** The 422 errors of a chain's steps; empty when they are fine. `root` is `steps`, or `chain_steps` for templates. */
export function chainStepErrors(
  steps: readonly ChainStepParsed[],
  rules: ExpressionRules = {},
  root = 'steps',
): ValidationErrors {
  const errors: ValidationErrors = {};
  const add = (path: (string | number)[], message: string) => {
    const key = path.join('.');
    errors[key] = [...(errors[key] ?? []), message];
  };
  steps.forEach((step, index) => {
    const check = (found: FoundExpression[], at: (f: FoundExpression) => (string | number)[]) => {
      for (const f of found) {
        const problem = expressionProblem(f.expression, index, rules);
        if (problem !== null) add(at(f), problem);
      }
    };
    if (step.condition !== undefined) {
      try {
        check(conditionExpressions(parseCondition(step.condition)), () => [root, index, 'condition']);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        add([root, index, 'condition'], error.message);
      }
    }
    const alias = stepTypeAlias(step.type);
    if (alias === 'webhook') {
      const http = step as HttpCallStepParsed;
      const problem = rules.urlSchemes === undefined ? null : urlTemplateProblem(http.url, rules.urlSchemes);
      if (problem !== null) add([root, index, 'url'], problem);
      if ((http.allowed_origins ?? []).length === 0 && originNeedsAllowlist(http.url, rules)) {
        add([root, index, 'url'], ORIGIN_EXPRESSION_NEEDS_ALLOWLIST);
      }
    }
    if (alias === 'wait') {
      const { delay, wait } = step as DelayStepParsed;
      const text = delay ?? wait;
      if (text !== undefined && parseDuration(text) === null) {
        add(
          [root, index, delay === undefined ? 'wait' : 'delay'],
          'must be more than 0 and at most 10 years',
        );
      }
    }
    for (const [field, value] of interpolatedFields(step)) {
      try {
        check(listExpressions(value), (f) => [root, index, field, ...f.path]);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        add([root, index, field, ...error.path], error.message);
      }
    }
  });
  return errors;
}
