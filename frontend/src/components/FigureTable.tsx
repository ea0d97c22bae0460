import type { ReactNode } from 'react';
import './figureTable.css';

/** What a row of a FigureTable may carry besides its cells. */
export interface RowProps {
  className?: string;
  title?: string;
  'data-testid'?: string;
}

/** One column of a FigureTable. */
export interface FigureColumn<R> {
  /** The column's header; empty for a decorative column. */
  header: ReactNode;
  /** The cell of a row. */
  cell: (row: R) => ReactNode;
  /** The row's header: its cell is a <th scope="row">, not a <td>. */
  rowHeader?: boolean;
  /** The class of the column's cells ('mono' for an identifier that may break anywhere). */
  className?: string | ((row: R) => string | undefined);
  /** A decorative column (a bar): hidden from assistive technology, header and cells. */
  decorative?: boolean;
}

/** A run of rows under an optional heading that spans the table (a platform's windows). */
export interface FigureGroup<R> {
  key: string;
  /** The group's heading row; none when null. */
  label: ReactNode | null;
  rows: readonly R[];
  testId?: string;
}

interface Props<R> {
  columns: readonly FigureColumn<R>[];
  /** The rows; or groups, for a table cut in row groups. */
  rows?: readonly R[];
  groups?: readonly FigureGroup<R>[];
  rowKey: (row: R) => string | number;
  /** A row's class, title and test id. */
  rowProps?: (row: R) => RowProps;
  caption?: ReactNode;
  /** Shown in one cell across the table when there is no row; an empty body when absent. */
  empty?: ReactNode;
  /** Classes added to figure-table. */
  className?: string;
  testId?: string;
}

/**
 * A table of figures, as the Spend and Insights sections show them: a header
 * row, then one row per item (its first cell the row's header where the
 * column says so), the empty text in their place when there is none.
 */
export function FigureTable<R>({
  columns,
  rows,
  groups,
  rowKey,
  rowProps,
  caption,
  empty,
  className,
  testId,
}: Props<R>) {
  const parts: readonly FigureGroup<R>[] = groups ?? [{ key: '', label: null, rows: rows ?? [] }];
  const none = parts.every((g) => g.rows.length === 0);
  const row = (r: R) => (
    <tr key={rowKey(r)} {...rowProps?.(r)}>
      {columns.map((c, i) => {
        const cls = typeof c.className === 'function' ? c.className(r) : c.className;
        const hidden = c.decorative ? true : undefined;
        return c.rowHeader ? (
          <th key={i} scope="row" className={cls} aria-hidden={hidden}>
            {c.cell(r)}
          </th>
        ) : (
          <td key={i} className={cls} aria-hidden={hidden}>
            {c.cell(r)}
          </td>
        );
      })}
    </tr>
  );
  return (
    <table className={className ? `figure-table ${className}` : 'figure-table'} data-testid={testId}>
      {caption !== undefined && <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" aria-hidden={c.decorative ? true : undefined}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      {none && empty !== undefined ? (
        <tbody>
          <tr>
            <td colSpan={columns.length}>{empty}</td>
          </tr>
        </tbody>
      ) : (
        parts.map((g) => (
          <tbody key={g.key} data-testid={g.testId}>
            {g.label !== null && (
              <tr>
                <th scope="rowgroup" colSpan={columns.length} className="figure-group">
                  {g.label}
                </th>
              </tr>
            )}
            {g.rows.map(row)}
          </tbody>
        ))
      )}
    </table>
  );
}
