import type { ResponseDecision } from '@sched/contract';

/**
 * Approve by replying: what a reply to an approval email says. Its first non-blank line above the quoted text
 * decides by its first word; the rest of that paragraph is the comment. Everything here is pure.
 */

const WORDS: Readonly<Record<string, ResponseDecision>> = Object.freeze({
  approve: 'confirm',
  approved: 'confirm',
  yes: 'confirm',
  confirm: 'confirm',
  ok: 'confirm',
  decline: 'decline',
  reject: 'decline',
  no: 'decline',
  snooze: 'snooze',
});

/** The spec's bound on a comment. */
export const REPLY_COMMENT_MAX = 500;

export type ReadReply =
  | { ok: true; decision: ResponseDecision; comment: string | null }
  | { ok: false; reason: string };

/** Where the quoted message starts: `> …` lines, `On … wrote:`, Outlook's separators and headers. */
function startsQuote(line: string): boolean {
  const t = line.trim();
  return (
    t.startsWith('>') ||
    /^On .+wrote:$/i.test(t) ||
    /^-{2,}\s*Original Message\s*-{2,}$/i.test(t) ||
    /^_{5,}$/.test(t) ||
    /^From: .+/i.test(t) ||
    /^-- ?$/.test(line)
  );
}

/** Reads the reply's text part (mail clients put the answer above the quote). */
export function readReply(text: string): ReadReply {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const own: string[] = [];
  for (const line of lines) {
    if (startsQuote(line)) break;
    own.push(line);
  }
  const first = own.findIndex((l) => l.trim() !== '');
  if (first < 0) return { ok: false, reason: 'the reply is empty above the quoted message' };
  const paragraph: string[] = [];
  for (const line of own.slice(first)) {
    if (line.trim() === '') break;
    paragraph.push(line.trim());
  }
  const head = paragraph[0]!;
  const word = /^[A-Za-z]+/.exec(head)?.[0]?.toLowerCase() ?? '';
  const decision = WORDS[word];
  if (!decision)
    return {
      ok: false,
      reason:
        'the first line does not start with approve, approved, yes, confirm or ok (to approve), decline, reject or no (to decline), or snooze',
    };
  // "Approve - looks fine", "yes: ship it", "no. Too early": separators after the word are not the comment.
  const rest = [head.slice(word.length).replace(/^[\s\-–—:,.!;]+/, ''), ...paragraph.slice(1)]
    .filter((l) => l !== '')
    .join('\n')
    .trim();
  return { ok: true, decision, comment: rest === '' ? null : rest.slice(0, REPLY_COMMENT_MAX) };
}

/** The reply token of the first `reply+<token>@<domain>` address among `addresses`, lower-cased; null if none. */
export function replyTokenIn(addresses: readonly string[], domain: string): string | null {
  for (const address of addresses) {
    const m = /^reply\+([0-9a-f]{48})@(.+)$/i.exec(address.trim());
    if (m && m[2]!.toLowerCase() === domain.toLowerCase()) return m[1]!.toLowerCase();
  }
  return null;
}

/** Two addresses name the same mailbox: compared without case (the local part's case is kept by almost no one). */
export function sameAddress(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();
}
