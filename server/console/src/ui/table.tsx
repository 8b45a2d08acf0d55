// The list and facts every panel shows: one table (a card per row on a narrow screen, with optional row selection)
// and one definition list, so a panel says what its columns and facts are, not how to draw them.
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  /** The header, and the label a narrow screen shows beside the value in a row's card. */
  label: string;
  cell: (row: T) => ComponentChildren;
  /** A header said only to assistive technology (a column of buttons). */
  hiddenLabel?: boolean;
  /** The cells' class (`row-buttons` for a column of buttons). */
  class?: string;
}

/** Which rows are picked, by id; the table draws a checkbox per row and one for all the rows it shows. */
export interface Selection {
  selected: readonly string[];
  onChange: (ids: string[]) => void;
}

/** A row's key: its `id` when it has one, else what `rowKey` says (an origin, a sequence number). */
type RowKey<T> = T extends { id: string }
  ? { rowKey?: (row: T) => string }
  : { rowKey: (row: T) => string | number };

export function DataTable<T extends object>(
  props: {
    columns: readonly (Column<T> | false | null | undefined)[];
    rows: readonly T[];
    /** Names a row for its checkbox ("Select Sync ledger"). */
    rowName?: (row: T) => string;
    /** Picks rows by their key; the table draws a checkbox per row and one for all the rows it shows. */
    selection?: Selection | undefined;
    /** `data-*` attributes of a row, for what reads the table (a test, a stylesheet). */
    rowData?: (row: T) => Record<`data-${string}`, string>;
    caption?: ComponentChildren;
    label?: string;
  } & RowKey<T>,
) {
  const columns = props.columns.filter((c): c is Column<T> => Boolean(c));
  const sel = props.selection;
  // RowKey makes `rowKey` required exactly where a row has no `id`.
  const rowKey = props.rowKey as ((row: T) => string | number) | undefined;
  const keyOf = (row: T): string => String(rowKey ? rowKey(row) : (row as { id: string }).id);
  const ids = props.rows.map(keyOf);
  const all = ids.length > 0 && ids.every((id) => sel?.selected.includes(id));
  return (
    <table class="list" aria-label={props.label}>
      {props.caption && <caption>{props.caption}</caption>}
      <thead>
        <tr>
          {sel && (
            <th scope="col" class="select">
              <input
                type="checkbox"
                aria-label="Select all on this page"
                checked={all}
                disabled={ids.length === 0}
                onChange={(e) =>
                  sel.onChange(
                    e.currentTarget.checked
                      ? [...new Set([...sel.selected, ...ids])]
                      : sel.selected.filter((id) => !ids.includes(id)),
                  )
                }
              />
            </th>
          )}
          {columns.map((c) => (
            <th key={c.label} scope="col">
              {c.hiddenLabel ? <span class="sr-only">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => {
          const key = keyOf(row);
          return (
            <tr key={key} {...props.rowData?.(row)}>
              {sel && (
                <td class="select">
                  <input
                    type="checkbox"
                    aria-label={`Select ${props.rowName?.(row) ?? key}`}
                    checked={sel.selected.includes(key)}
                    onChange={(e) =>
                      sel.onChange(
                        e.currentTarget.checked
                          ? [...sel.selected, key]
                          : sel.selected.filter((id) => id !== key),
                      )
                    }
                  />
                </td>
              )}
              {columns.map((c) => (
                <td key={c.label} class={c.class} data-label={c.hiddenLabel ? undefined : c.label}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One fact of a `Facts` list; a fact whose `show` is false is left out. */
export interface Fact {
  label: string;
  value: ComponentChildren;
  show?: boolean;
  error?: boolean;
}

export function Facts({
  facts,
  label,
  figures = false,
}: {
  facts: readonly Fact[];
  label?: string;
  /** Each value a figure drawn large (a count, a duration), as a dashboard shows them. */
  figures?: boolean;
}) {
  return (
    <dl class={figures ? 'figures' : 'facts'} aria-label={label}>
      {facts
        .filter((f) => f.show !== false)
        .map((f) => (
          <div key={f.label}>
            <dt>{f.label}</dt>
            <dd class={f.error ? 'error-text' : undefined}>{f.value}</dd>
          </div>
        ))}
    </dl>
  );
}
