/**
 * The one stylesheet of the response pages, inlined in a `<style>` element. The CSP allows exactly this
 * text by its hash, so every byte here matters: change it freely, the hash follows at module load.
 * No `style=""` attributes anywhere in the markup, because the CSP blocks them.
 *
 * Colours meet WCAG AA (4.5:1) for text in both schemes; buttons are at least 48 px tall; the layout is a
 * single column that fits a 360 px wide phone and widens up to 40 rem.
 */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #eef1f5;
  --card: #ffffff;
  --border: #d7dce3;
  --text: #111827;
  --muted: #4b5563;
  --brand: #3730a3;
  --brand-text: #ffffff;
  --quote: #f6f7fb;
  --quote-edge: #6366f1;
  --confirm: #166534;
  --confirm-hover: #14532d;
  --decline: #b91c1c;
  --decline-bg: #ffffff;
  --decline-hover: #fef2f2;
  --neutral: #374151;
  --neutral-bg: #ffffff;
  --neutral-hover: #f3f4f6;
  --callout: #eef2ff;
  --callout-edge: #4338ca;
  --ok: #166534;
  --ok-bg: #dcfce7;
  --bad: #b91c1c;
  --bad-bg: #fee2e2;
  --wait: #92400e;
  --wait-bg: #fef3c7;
  --focus: #1d4ed8;
  --link: #1d4ed8;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f172a;
    --card: #1e293b;
    --border: #334155;
    --text: #f1f5f9;
    --muted: #cbd5e1;
    --brand: #312e81;
    --quote: #162033;
    --quote-edge: #818cf8;
    --confirm: #15803d;
    --confirm-hover: #166534;
    --decline: #fca5a5;
    --decline-bg: #1e293b;
    --decline-hover: #3b1d24;
    --neutral: #e2e8f0;
    --neutral-bg: #1e293b;
    --neutral-hover: #334155;
    --callout: #1e1b4b;
    --callout-edge: #a5b4fc;
    --ok: #86efac;
    --ok-bg: #14532d;
    --bad: #fca5a5;
    --bad-bg: #7f1d1d;
    --wait: #fcd34d;
    --wait-bg: #78350f;
    --focus: #93c5fd;
    --link: #93c5fd;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif;
  font-size: 1rem;
  line-height: 1.5;
}
.brand {
  background: var(--brand);
  color: var(--brand-text);
  padding: 0.75rem;
  font-weight: 600;
  letter-spacing: 0.02em;
}
.brand p { margin: 0 auto; max-width: 40rem; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem 0.75rem 2rem; }
.card {
  background: var(--card);
  border: 1px solid var(--border);
  border-radius: 0.75rem;
  padding: 1.25rem 1rem;
  box-shadow: 0 1px 2px rgb(15 23 42 / 0.06), 0 4px 12px rgb(15 23 42 / 0.05);
}
@media (min-width: 30rem) {
  main { padding: 2rem 1rem 3rem; }
  .brand p { padding: 0 1rem; }
  .card { padding: 1.75rem 1.75rem; }
}
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 0.5rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 1.5rem 0 0.5rem; }
p { margin: 0.5rem 0; }
.eyebrow {
  margin: 0 0 0.25rem;
  color: var(--muted);
  font-size: 0.8125rem;
  font-weight: 600;
  letter-spacing: 0.06em;
  text-transform: uppercase;
}
.meta { color: var(--muted); font-size: 0.9375rem; margin: 0.25rem 0; overflow-wrap: anywhere; }
.meta strong { color: var(--text); font-weight: 600; }
.message {
  margin: 1rem 0 0;
  padding: 0.875rem 1rem;
  background: var(--quote);
  border-left: 4px solid var(--quote-edge);
  border-radius: 0 0.5rem 0.5rem 0;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}
.callout {
  margin: 1rem 0 0;
  padding: 0.75rem 1rem;
  background: var(--callout);
  border-left: 4px solid var(--callout-edge);
  border-radius: 0 0.5rem 0.5rem 0;
}
.attachments { list-style: none; margin: 0; padding: 0; }
.attachments li {
  display: flex;
  flex-direction: column;
  gap: 0.125rem;
  padding: 0.625rem 0;
  border-top: 1px solid var(--border);
}
.attachments li:last-child { border-bottom: 1px solid var(--border); }
.attachments .file { font-weight: 600; overflow-wrap: anywhere; }
.attachments .size { color: var(--muted); font-size: 0.875rem; }
a { color: var(--link); text-underline-offset: 0.15em; }
form { margin: 0; }
label { display: block; font-weight: 600; margin: 1.5rem 0 0.375rem; }
.hint { color: var(--muted); font-size: 0.875rem; margin: 0.375rem 0 0; }
textarea, select {
  display: block;
  width: 100%;
  font: inherit;
  color: var(--text);
  background: var(--card);
  border: 1px solid #6b7280;
  border-radius: 0.5rem;
  padding: 0.625rem 0.75rem;
}
textarea { min-height: 6.5rem; resize: vertical; }
select { min-height: 3rem; }
.decisions { display: grid; grid-template-columns: 1fr; gap: 0.75rem; margin: 1.25rem 0 0; }
@media (min-width: 30rem) {
  .decisions { grid-template-columns: 1fr 1fr; }
}
button {
  min-height: 3rem;
  padding: 0.625rem 1rem;
  font: inherit;
  font-weight: 600;
  border-radius: 0.5rem;
  border: 2px solid transparent;
  cursor: pointer;
  overflow-wrap: anywhere;
}
.confirm { background: var(--confirm); border-color: var(--confirm); color: #ffffff; }
.confirm:hover { background: var(--confirm-hover); border-color: var(--confirm-hover); }
.decline { background: var(--decline-bg); border-color: var(--decline); color: var(--decline); }
.decline:hover { background: var(--decline-hover); }
.secondary { background: var(--neutral-bg); border-color: var(--neutral); color: var(--neutral); }
.secondary:hover { background: var(--neutral-hover); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
textarea:focus-visible, select:focus-visible { outline-offset: 0; border-color: var(--focus); }
.snooze { margin: 1.5rem 0 0; padding: 1.25rem 0 0; border-top: 1px solid var(--border); }
.snooze fieldset { margin: 0; padding: 0; border: 0; min-width: 0; }
.snooze legend { padding: 0; font-weight: 600; }
.snooze label { margin: 0.25rem 0 0.5rem; font-weight: 400; color: var(--muted); }
.snooze-row { display: flex; flex-wrap: wrap; gap: 0.75rem; }
.snooze-row select { flex: 1 1 9rem; width: auto; }
.snooze-row button { flex: 1 1 7rem; }
footer { color: var(--muted); font-size: 0.875rem; margin: 1.25rem 0.25rem 0; }
.outcome { text-align: center; }
.badge {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 4rem;
  height: 4rem;
  border-radius: 50%;
  margin: 0.5rem auto 1rem;
}
.badge svg { width: 2rem; height: 2rem; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.wait { background: var(--wait-bg); color: var(--wait); }
.outcome .meta { font-size: 1rem; }
.quoted { font-weight: 600; color: var(--text); }
`;
