import type { Page } from './types.js';

/**
 * Walks a paginated list from `query.page` (default 1) to the last page, one request per page, yielding each page.
 * Stops at `meta.last_page` or at the first empty page; when the total is an estimate (`meta.total_exact` false:
 * more than the contract's EXACT_TOTAL_LIMIT match), at the first page shorter than `per_page` instead, since the
 * estimate may fall short. Pages are offsets into a list ordered newest first, so actions created while the walk runs
 * shift later pages: an item may then appear twice; use ids to deduplicate.
 */
export async function* paginatePages<T, Q extends { page?: number | undefined }>(
  fetchPage: (query: Q) => Promise<Page<T>>,
  query: Q,
): AsyncGenerator<Page<T>, void, undefined> {
  let page = query.page ?? 1;
  for (;;) {
    const result = await fetchPage({ ...query, page });
    yield result;
    if (result.data.length === 0) return;
    const last =
      result.meta.total_exact === false
        ? result.data.length < result.meta.per_page
        : page >= result.meta.last_page;
    if (last) return;
    page += 1;
  }
}

/** The items of every page, in order (see `paginatePages`). */
export async function* paginate<T, Q extends { page?: number | undefined }>(
  fetchPage: (query: Q) => Promise<Page<T>>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(fetchPage, query)) yield* page.data;
}

/** Collects an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
