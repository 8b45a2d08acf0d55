import { readFileSync } from 'node:fs';

/**
 * The one stylesheet of the response pages (`styles.css`), read once at start and inlined in a `<style>` element.
 * The CSP allows exactly this text by its hash, computed from these bytes at load, so the file can change freely.
 * No `style=""` attributes anywhere in the markup, because the CSP blocks them.
 *
 * Colours meet WCAG AA (4.5:1) for text in both schemes; buttons are at least 48 px tall; the layout is a single
 * column that fits a 360 px wide phone and widens up to 40 rem.
 *
 * The path is the same from `src/http/pages` and from `dist/http/pages` (the build copies no CSS): the file is
 * read where it is kept.
 */
export const PAGE_STYLE = readFileSync(
  new URL('../../../src/http/pages/styles.css', import.meta.url),
  'utf8',
);
