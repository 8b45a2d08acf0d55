// Keyboard shortcuts of the console: `/` to the search field, `g` then a letter to a panel, `?` for this list. They
// never fire while typing in a field or with a modifier held, so they cannot take a letter meant for a form.
import { useEffect, useId, useRef } from 'preact/hooks';
import { navigate } from './router.js';

/** `g` then the letter: the panel's path. */
const GO: readonly [key: string, path: string, label: string][] = [
  ['o', '', 'Overview'],
  ['a', 'actions', 'Actions'],
  ['f', 'failed', 'Failed inbox'],
  ['p', 'approvals', 'Approvals'],
  ['b', 'bulk', 'Bulk operations'],
  ['d', 'destinations', 'Destinations'],
  ['l', 'audit', 'Audit log'],
  ['s', 'settings', 'Settings'],
];
/** How long after `g` its second key counts. */
const CHORD_MS = 1500;

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));
}

function focusSearch(): boolean {
  const field = document.querySelector<HTMLInputElement>('main input[type="search"]');
  field?.focus();
  return Boolean(field);
}

/** Listens on the document while the console is signed in; renders the `?` help dialog. */
export function Shortcuts() {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    let chordUntil = 0;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target) || dialog.current?.open) return;
      const go = Date.now() < chordUntil ? GO.find(([key]) => key === e.key) : undefined;
      chordUntil = 0;
      if (go) {
        e.preventDefault();
        navigate(go[1]);
      } else if (e.key === 'g') {
        chordUntil = Date.now() + CHORD_MS;
      } else if (e.key === '/') {
        e.preventDefault();
        // A panel without a search field: the actions list has one.
        if (!focusSearch()) {
          navigate('actions');
          // After the new view has drawn and taken focus to its content.
          setTimeout(focusSearch, 200);
        }
      } else if (e.key === '?') {
        e.preventDefault();
        dialog.current?.showModal();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby={titleId}>
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <dl class="shortcuts">
        <div>
          <dt>
            <kbd>/</kbd>
          </dt>
          <dd>Search (the actions list's, where the panel has none)</dd>
        </div>
        {GO.map(([key, , label]) => (
          <div key={key}>
            <dt>
              <kbd>g</kbd> <kbd>{key}</kbd>
            </dt>
            <dd>{label}</dd>
          </div>
        ))}
        <div>
          <dt>
            <kbd>?</kbd>
          </dt>
          <dd>This list</dd>
        </div>
      </dl>
      <div class="buttons">
        <button type="button" class="primary" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
