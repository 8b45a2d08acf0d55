import { existsSync, readFileSync } from 'node:fs';

/**
 * The one stylesheet of the response pages (`styles.css`), read once at start and inlined in a `<style>` element.
 * The CSP allows exactly this text by its hash, computed from these bytes at load, so the file can change freely.
 * No `style=""` attributes anywhere in the markup, because the CSP blocks them.
 *
 * Colours meet WCAG AA (4.5:1) for text in both schemes; buttons are at least 48 px tall; the layout is a single
 * column that fits a 360 px wide phone and widens up to 40 rem.
 */
export const PAGE_STYLE = readFileSync(stylesheetPath(), 'utf8');

/** Beside this module (sources, or a build that copied it), else the sources' copy: `tsc` copies no CSS. */
function stylesheetPath(): URL {
  const beside = new URL('./styles.css', import.meta.url);
  return existsSync(beside) ? beside : new URL('../../../src/http/pages/styles.css', import.meta.url);
}
