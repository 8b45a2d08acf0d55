/**
 * The only errors the expression modules throw. Every one names what was wrong; `path` says where inside the
 * value being interpolated (`['body', 'items', 0]`), empty for a bare string or a condition.
 */
export class ExpressionError extends Error {
  /** Keys from the root of the interpolated value to the string at fault; filled in while the error unwinds. */
  readonly path: (string | number)[] = [];

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** `body.items.0`, or '' at the root. */
  get dottedPath(): string {
    return this.path.join('.');
  }
}

/** A `{{...}}` that is not an expression of the grammar, or an unclosed `{{`. */
export class ExpressionSyntaxError extends ExpressionError {}

/** A well-formed expression this place cannot read (`{{steps.0.status}}` in an action template, `{{name}}` in a chain). */
export class UnknownExpressionError extends ExpressionError {
  constructor(
    readonly expression: string,
    reason: string,
  ) {
    super(`{{${expression}}} ${reason}`);
  }
}

/** The expression is valid here but its path leads nowhere (a missing key, an index past the end). */
export class MissingValueError extends ExpressionError {
  constructor(
    readonly expression: string,
    reason: string,
  ) {
    super(`{{${expression}}} has no value: ${reason}`);
  }
}

/** A condition that is not `<left> <operator> <right>`. */
export class ConditionSyntaxError extends ExpressionError {}
