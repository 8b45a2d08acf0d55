// The page of rows every list panel shows under its heading and filters, and the pager under it: a panel says what
// its rows are and what an empty list means, not how it loads or pages.
import type { ComponentChildren } from 'preact';
import { navigate, type Route } from '../router.js';
import { aboutIf, Empty, type Loaded, WhenLoaded } from '../ui.js';

/** What a list's answer says of its pages. */
interface PageMeta {
  current_page: number;
  last_page: number;
  total: number;
  total_exact?: boolean;
}

/** The page of a list that the URL asks for; the first when it names none. */
export function pageOf(route: Route): number {
  return Number(route.query.get('page') ?? 1);
}

/** The pages of a list in a view: each is the view's URL with its `query` (the list's filters) and the page. */
export function Pager(props: {
  meta: PageMeta;
  noun: string;
  view: string;
  query?: Readonly<Record<string, string | undefined>>;
}) {
  const { current_page: page, last_page: last, total } = props.meta;
  const go = (to: number) => navigate(props.view, { ...props.query, page: String(to) });
  // Past the contract's EXACT_TOTAL_LIMIT matches the server estimates the total rather than counting it, and the
  // last page may lie beyond the estimate.
  const estimated = props.meta.total_exact === false;
  const about = aboutIf(estimated);
  return (
    <nav class="pager" aria-label={`${props.noun} pages`}>
      <span>
        {about}
        {total} {props.noun}
        {last > 1 ? ` · page ${page} of ${about}${last}` : ''}
      </span>
      {page > 1 && (
        <button type="button" onClick={() => go(page - 1)}>
          Previous page
        </button>
      )}
      {(page < last || estimated) && (
        <button type="button" onClick={() => go(page + 1)}>
          Next page
        </button>
      )}
    </nav>
  );
}

/**
 * A list view's page of rows: what its load gave (the error with Retry, a loading line), then `children` drawn from
 * the rows, or `empty` in their place when there are none, and the pager.
 */
export function ListPage<Row>(props: {
  list: Loaded<{ data: Row[]; meta: PageMeta }>;
  /** What the rows are (`bulk operations`): said while they load and by the pager. */
  noun: string;
  /** The view (`chains`) and its filters, which each page keeps in the URL. */
  view: string;
  query?: Readonly<Record<string, string | undefined>>;
  /** What an empty list means and what to do next; without it, `children` draw the empty list too. */
  empty?: ComponentChildren;
  children: (rows: Row[]) => ComponentChildren;
}) {
  return (
    <WhenLoaded loaded={props.list} what={props.noun}>
      {(page) => (
        <>
          {page.data.length === 0 && props.empty ? <Empty>{props.empty}</Empty> : props.children(page.data)}
          <Pager noun={props.noun} meta={page.meta} view={props.view} query={props.query} />
        </>
      )}
    </WhenLoaded>
  );
}
