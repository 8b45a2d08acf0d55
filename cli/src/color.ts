import { styleText } from 'node:util';

/**
 * Colour for a person at a terminal, never for a pipe or a file: on when the stream is a TTY (and TERM is not
 * `dumb`), off whenever NO_COLOR is set to anything non-empty (no-color.org), forced by FORCE_COLOR (except `0`).
 */
export function colorEnabled(
  stream: { isTTY?: boolean | undefined },
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

type Style = Parameters<typeof styleText>[0];

/** How a status reads at a glance: done green, failed red, waiting on someone yellow, ended without running dim. */
const STATUS_STYLES: Record<string, Style> = {
  executed: 'green',
  completed: 'green',
  delivered: 'green',
  verified: 'green',
  closed: 'green',
  failed: 'red',
  rejected: 'red',
  open: 'red',
  disabled: 'red',
  awaiting_response: 'yellow',
  paused: 'yellow',
  pending: 'yellow',
  half_open: 'yellow',
  cancelled: 'dim',
  expired: 'dim',
  skipped: 'dim',
};

export interface Painter {
  /** A table's header row. */
  header(text: string): string;
  /** A status word (any column named status or state). */
  status(word: string, text?: string): string;
  /** `error` before a failure's message. */
  error(text: string): string;
}

export function painter(enabled: boolean): Painter {
  const paint = (style: Style, text: string) =>
    enabled ? styleText(style, text, { validateStream: false }) : text;
  return {
    header: (text) => paint('bold', text),
    status: (word, text = word) => {
      const style = STATUS_STYLES[word.trim()];
      return style ? paint(style, text) : text;
    },
    error: (text) => paint('red', text),
  };
}
