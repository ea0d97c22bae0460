import type { ReactNode } from 'react';
import { statusOf } from '../api/client';
import { Pagination } from './Pagination';

interface Props<T> {
  /** The page's items, undefined until the first answer. */
  items: readonly T[] | undefined;
  /** The read's error, if it failed. */
  error: unknown;
  page: number;
  totalPages: number | undefined;
  onPage: (page: number) => void;
  /** Shown when the read failed. */
  errorText: string;
  /** Shown when the page is empty, with emptyTestId. */
  emptyText: string;
  emptyTestId: string;
  /** The list's class, and the pager's accessible name and status test id. */
  className: string;
  pagesLabel: string;
  statusTestId: string;
  /** One item, as the <li> it is shown in. */
  children: (item: T) => ReactNode;
}

/**
 * A paged list as every paged panel shows it: the error, the loading line or
 * the empty message in its place, else the items, then the pager.
 */
export function PagedList<T>({
  items,
  error,
  page,
  totalPages,
  onPage,
  errorText,
  emptyText,
  emptyTestId,
  className,
  pagesLabel,
  statusTestId,
  children,
}: Props<T>) {
  let body: ReactNode;
  // A refused session shows nothing: request() already left for the login.
  if (error && statusOf(error) !== 401) {
    body = (
      <p className="banner banner-error" role="alert">
        {errorText}
      </p>
    );
  } else if (!items) {
    body = (
      <p className="muted" role="status">
        Summoning the damned…
      </p>
    );
  } else if (items.length === 0) {
    body = (
      <p className="empty" data-testid={emptyTestId}>
        {emptyText}
      </p>
    );
  } else {
    body = <ul className={className}>{items.map(children)}</ul>;
  }
  return (
    <>
      {body}
      <Pagination page={page} totalPages={totalPages} onChange={onPage} label={pagesLabel} statusTestId={statusTestId} />
    </>
  );
}
