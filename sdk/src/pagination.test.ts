import { describe, expect, it } from 'vitest';
import { collect, paginate, paginatePages } from './pagination.js';
import type { Page } from './types.js';

/** A list of `total` items; `estimate` is the total it reports instead, as an estimate (`total_exact: false`). */
function fakeList(total: number, estimate?: number) {
  const items = Array.from({ length: total }, (_, i) => i + 1);
  const reported = estimate ?? total;
  type Query = { page?: number; per_page?: number; status?: string };
  const calls: Query[] = [];
  const fetchPage = async (q: Query): Promise<Page<number>> => {
    calls.push(q);
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 25;
    return {
      data: items.slice((page - 1) * perPage, page * perPage),
      meta: {
        current_page: page,
        last_page: Math.max(1, Math.ceil(reported / perPage)),
        total: reported,
        ...(estimate === undefined ? {} : { total_exact: false }),
        per_page: perPage,
      },
    };
  };
  return { fetchPage, calls };
}

describe('paginate', () => {
  it('walks every page in order, one request each, keeping the filters', async () => {
    const { fetchPage, calls } = fakeList(7);
    expect(await collect(paginate(fetchPage, { per_page: 3, status: 'scheduled' }))).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
    expect(calls).toEqual([
      { per_page: 3, status: 'scheduled', page: 1 },
      { per_page: 3, status: 'scheduled', page: 2 },
      { per_page: 3, status: 'scheduled', page: 3 },
    ]);
  });

  it('starts at the given page', async () => {
    const { fetchPage } = fakeList(7);
    expect(await collect(paginate(fetchPage, { page: 2, per_page: 3 }))).toEqual([4, 5, 6, 7]);
  });

  it('makes one request for an empty list and stops on an empty page', async () => {
    const { fetchPage, calls } = fakeList(0);
    expect(await collect(paginate(fetchPage, {}))).toEqual([]);
    expect(calls).toHaveLength(1);
    const stale = async (q: { page?: number }): Promise<Page<number>> => ({
      data: q.page === 1 ? [1] : [],
      meta: { current_page: q.page ?? 1, last_page: 5, total: 5, per_page: 1 },
    });
    expect(await collect(paginate(stale, {}))).toEqual([1]);
  });

  it('is lazy: breaking out early fetches no further pages', async () => {
    const { fetchPage, calls } = fakeList(10);
    for await (const item of paginate(fetchPage, { per_page: 2 })) {
      if (item === 2) break;
    }
    expect(calls).toHaveLength(1);
  });

  it('yields whole pages with their meta', async () => {
    const { fetchPage } = fakeList(5);
    const pages = await collect(paginatePages(fetchPage, { per_page: 2 }));
    expect(pages.map((p) => [p.meta.current_page, p.data])).toEqual([
      [1, [1, 2]],
      [2, [3, 4]],
      [3, [5]],
    ]);
  });

  it('walks an estimated total to the first short page, whether the estimate falls short or goes past', async () => {
    const short = fakeList(7, 4);
    expect(await collect(paginate(short.fetchPage, { per_page: 3 }))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(short.calls.map((c) => c.page)).toEqual([1, 2, 3]);
    const long = fakeList(6, 12);
    expect(await collect(paginate(long.fetchPage, { per_page: 3 }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(long.calls.map((c) => c.page)).toEqual([1, 2, 3]);
  });
});
