/**
 * The login-free approval response pages: pure functions from a view model to an HTML5 string.
 * No Fastify, no database: the `/r/<token>` routes load the model, call these and send the string with
 * `PAGE_HEADERS`. The pages work without JavaScript (plain form posts) and load nothing from anywhere (one
 * inline stylesheet allowed by its hash). Written as Preact components rendered to a string: every text and
 * attribute is escaped by the renderer, and the only raw HTML is our own stylesheet.
 */
import {
  type CommentPolicy,
  type GateField,
  RESPONSE_DECISION,
  type ResponseDecision,
  type STATUS_AFTER_DECISION,
} from '@sched/contract';
import { AnswerFields, GrantChoice } from './fields.js';
import { Badge, formatRelative, formatSize, page, safeHref, Time } from './document.js';

/** recipient response_comment limit, counted as the browser's `maxlength` counts (UTF-16 units). */
export const COMMENT_MAX_LENGTH = 500;

export interface ResponsePageAttachment {
  name: string;
  /** A same-site path (`/r/<token>/attachments/0`) or an http(s) URL; anything else is shown without a link. */
  url: string;
  /** Bytes. */
  size: number;
  contentType: string;
}

export interface ResponsePageModel {
  /** The action's name. */
  title: string;
  /** The gate message, plain text, at most 5000 chars; newlines are kept. */
  message: string;
  recipientName: string;
  /** The POST URL (the same `/r/<token>`). */
  formAction: string;
  buttons: { confirm: string; decline: string };
  /** The snooze choices (`{ value: '1h', label: '1 hour' }`); hidden unless allowed with snoozes remaining. */
  snooze: { allowed: boolean; remaining: number; choices: { value: string; label: string }[] };
  attachments: ResponsePageAttachment[];
  expiresAt: Date;
  /** Answers so far in all_required mode. */
  progress?: { responded: number; total: number };
  /** A quorum gate: confirmations received, the minimum, and how many more are needed. */
  quorum?: { confirmed: number; min: number; needed: number };
  /** `gate.comment`: when a comment must accompany the answer. */
  commentPolicy?: CommentPolicy;
  /** From `?decision=` in the link: that button gets the focus and a hint; nothing is ever submitted by itself. */
  suggestedDecision?: Exclude<ResponseDecision, typeof RESPONSE_DECISION.snooze>;
  /** The clock, for the relative expiry hint ("in 6 days"); defaults to the current time. */
  now?: Date;
  /** The typed answer asked for (`gate.fields`), shown as inputs prefilled with their defaults. */
  fields?: readonly GateField[];
  /** The standing grant the approver may give with a confirm (`gate.grant`): its key and the durations offered. */
  grant?: { key: string; choices: { value: string; label: string }[] };
}

export interface ResultPageModel {
  title: string;
  outcome: (typeof STATUS_AFTER_DECISION)[ResponseDecision];
  /** A sentence to add, e.g. "1 of 3 recipients has confirmed; the action runs when everyone has." */
  detail?: string;
  snoozedUntil?: Date;
  now?: Date;
}

export interface GonePageModel {
  reason: 'expired' | 'closed' | 'answered' | 'reassigned' | 'unknown' | 'requester';
  title?: string;
}

export interface ErrorPageModel {
  status: number;
  message: string;
  /** Where "Go back" leads, usually the response page's own URL. */
  backUrl?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Pages

function Attachments({ items }: { items: ResponsePageAttachment[] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h2 id="attachments-heading">Attachments ({items.length})</h2>
      <ul class="attachments" aria-labelledby="attachments-heading">
        {items.map((a) => {
          const href = safeHref(a.url);
          return (
            <li>
              {href ? (
                <a class="file" href={href} rel="noopener noreferrer">
                  {a.name}
                </a>
              ) : (
                <span class="file">{a.name}</span>
              )}
              <span class="size">
                {`${a.contentType} · ${formatSize(a.size)}${href ? '' : ' · link unavailable'}`}
              </span>
            </li>
          );
        })}
      </ul>
    </>
  );
}

function Snooze({ snooze, novalidate }: { snooze: ResponsePageModel['snooze']; novalidate: boolean }) {
  const remaining = Math.max(0, Math.floor(snooze.remaining));
  if (!snooze.allowed || remaining === 0 || snooze.choices.length === 0) return null;
  return (
    <div class="snooze">
      <fieldset>
        <legend>Not ready to decide?</legend>
        <label for="snooze_for">Remind me again in</label>
        <div class="snooze-row">
          <select id="snooze_for" name="snooze_for" aria-describedby="snooze-hint">
            {snooze.choices.map((choice) => (
              <option value={choice.value}>{choice.label}</option>
            ))}
          </select>
          <button type="submit" name="decision" value="snooze" class="secondary" formnovalidate={novalidate}>
            Snooze
          </button>
        </div>
        <p class="hint" id="snooze-hint">
          {`${remaining} ${remaining === 1 ? 'snooze' : 'snoozes'} left.`}
        </p>
      </fieldset>
    </div>
  );
}

/** The page behind a response link: the message, attachments, a comment box and the decision buttons. */
export function renderResponsePage(m: ResponsePageModel): string {
  const now = m.now ?? new Date();
  const expired = m.expiresAt.getTime() <= now.getTime();
  const asksValues = (m.fields ?? []).length > 0;
  return page(
    `${m.title} · Approval request`,
    <>
      <div class="card">
        <p class="eyebrow">Approval request</p>
        <h1>{m.title}</h1>
        <p class="meta">
          For <strong>{m.recipientName}</strong>
        </p>
        <p class="meta">
          {expired ? 'Expired' : 'Answer by'} <Time date={m.expiresAt} />{' '}
          <span>({formatRelative(m.expiresAt, now)})</span>
        </p>
        {m.progress ? (
          <p class="meta">
            {`${m.progress.responded} of ${m.progress.total} ${m.progress.total === 1 ? 'recipient has' : 'recipients have'} answered; every recipient must confirm.`}
          </p>
        ) : null}
        {m.quorum ? (
          <p class="meta quorum">
            {`${m.quorum.confirmed} of ${m.quorum.min} approvals received. ${approvalsNeededText(m.quorum.needed)}`}
          </p>
        ) : null}
        <div class="message">{m.message}</div>
        <Attachments items={m.attachments} />
        {m.suggestedDecision ? (
          <p class="callout">
            Almost done: press <strong>{m.buttons[m.suggestedDecision]}</strong> below to send your answer.
            Nothing has been recorded yet.
          </p>
        ) : null}
        <form method="post" action={m.formAction}>
          <AnswerFields fields={m.fields ?? []} />
          <label for="comment">
            Comment{' '}
            <span class="hint">
              {m.commentPolicy === 'required'
                ? '(required)'
                : m.commentPolicy === 'required_on_decline'
                  ? '(required to decline)'
                  : '(optional)'}
            </span>
          </label>
          <textarea
            id="comment"
            name="comment"
            required={m.commentPolicy === 'required'}
            maxlength={COMMENT_MAX_LENGTH}
            rows={4}
            aria-describedby="comment-hint"
          />
          <p class="hint" id="comment-hint">
            {`Up to ${COMMENT_MAX_LENGTH} characters. The requester sees it with your answer.`}
          </p>
          <GrantChoice grant={m.grant} />
          <div class="decisions">
            {[RESPONSE_DECISION.confirm, RESPONSE_DECISION.decline].map((decision) => (
              <button
                type="submit"
                name="decision"
                value={decision}
                class={decision}
                // A decline needs no typed answer: the browser checks the inputs for a confirm only.
                formnovalidate={asksValues && decision !== RESPONSE_DECISION.confirm}
                autofocus={m.suggestedDecision === decision}
              >
                {m.buttons[decision]}
              </button>
            ))}
          </div>
          <Snooze snooze={m.snooze} novalidate={asksValues} />
        </form>
      </div>
      <footer>
        <p>
          {`This private link was sent to ${m.recipientName}; please do not forward it. `}
          Nothing is recorded until you press a button.
        </p>
      </footer>
    </>,
  );
}

/** How many approvals a quorum gate still needs, in words: "1 more approval is needed." */
export function approvalsNeededText(needed: number): string {
  return needed === 1 ? '1 more approval is needed.' : `${needed} more approvals are needed.`;
}

const OUTCOMES = {
  confirmed: { heading: 'Confirmed', icon: 'check', tone: 'ok' },
  declined: { heading: 'Declined', icon: 'cross', tone: 'bad' },
  snoozed: { heading: 'Snoozed', icon: 'clock', tone: 'wait' },
} as const;

/** The answer to a successful POST: what was recorded, and when a snoozed request comes back. */
export function renderResultPage(r: ResultPageModel): string {
  const now = r.now ?? new Date();
  const o = OUTCOMES[r.outcome];
  return page(
    `${o.heading} · ${r.title}`,
    <div class="card outcome">
      <div role="status">
        <Badge icon={o.icon} tone={o.tone} />
        <h1>{o.heading}</h1>
        <p class="meta">
          Your answer to <span class="quoted">“{r.title}”</span> was recorded. Thank you.
        </p>
        {r.outcome === 'snoozed' && r.snoozedUntil ? (
          <p class="meta">
            You will be asked again at <Time date={r.snoozedUntil} /> ({formatRelative(r.snoozedUntil, now)}).
          </p>
        ) : null}
        {r.detail ? <p class="meta">{r.detail}</p> : null}
      </div>
      <p class="hint">You can close this page.</p>
    </div>,
  );
}

const GONE = {
  expired: {
    heading: 'This link has expired',
    text: 'The request timed out, so it no longer accepts answers.',
  },
  closed: {
    heading: 'This request is closed',
    text: 'It was cancelled or decided already, so it no longer accepts answers.',
  },
  answered: {
    heading: 'You have already answered',
    text: 'Your answer was recorded earlier; it cannot be changed from this link.',
  },
  reassigned: {
    heading: 'This request was reassigned',
    text: 'It was handed over to someone else, so this link no longer accepts answers.',
  },
  requester: {
    heading: 'You cannot approve your own request',
    text: 'You asked for this approval, so your answer does not count towards it. The other recipients decide.',
  },
  unknown: {
    heading: 'Link not found',
    text: 'This link is not valid. Check that you opened the whole address from the message.',
  },
} as const;

/** For links that no longer work: sent with 410 (404 for `unknown`). */
export function renderGonePage(g: GonePageModel): string {
  const copy = GONE[g.reason];
  const answered = g.reason === 'answered';
  return page(
    copy.heading,
    <div class="card outcome">
      <Badge icon={answered ? 'check' : 'link'} tone={answered ? 'ok' : 'wait'} />
      <h1>{copy.heading}</h1>
      {g.title ? (
        <p class="meta">
          Request: <span class="quoted">“{g.title}”</span>
        </p>
      ) : null}
      <p class="meta">{copy.text}</p>
      <p class="hint">If you think this is a mistake, contact the person who sent you the request.</p>
    </div>,
  );
}

function errorHeading(status: number): string {
  if (status === 429) return 'Too many attempts';
  if (status >= 500) return 'Something went wrong';
  return 'Your answer could not be recorded';
}

/** For 422 (an invalid form) and 429 (the per-token rate limit) and any other error a page must show. */
export function renderErrorPage(e: ErrorPageModel): string {
  const heading = errorHeading(e.status);
  const back = e.backUrl ? safeHref(e.backUrl) : null;
  const next =
    e.status === 429 ? 'Please wait a minute, then try again.' : 'Go back, check your answer and try again.';
  return page(
    heading,
    <div class="card outcome">
      <div role="alert">
        <Badge icon="alert" tone="bad" />
        <h1>{heading}</h1>
        <p class="meta">{e.message}</p>
      </div>
      <p class="hint">
        {next}
        {back ? (
          <>
            {' '}
            <a href={back}>Back to the request</a>
          </>
        ) : null}
      </p>
      <p class="hint">Error {e.status}</p>
    </div>,
  );
}
