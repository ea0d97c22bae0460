import { showPagination } from '../lib/pagination';

interface Props {
  page: number;
  totalPages: number | undefined;
  onChange: (page: number) => void;
  /** The navigation's accessible name; 'Pages' unless a page holds more than one. */
  label?: string;
  /** The data-testid of the "Page n of m" status. */
  statusTestId?: string;
}

/** First / previous / next / last; rendered only when there is more than one page. */
export function Pagination({ page, totalPages, onChange, label = 'Pages', statusTestId = 'page-status' }: Props) {
  if (!showPagination(totalPages)) return null;
  const last = totalPages as number;
  return (
    <nav className="pagination" aria-label={label} data-testid="pagination">
      <button type="button" className="btn btn-ghost" onClick={() => onChange(1)} disabled={page <= 1}>
        First
      </button>
      <button type="button" className="btn btn-ghost" onClick={() => onChange(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span className="pagination-status" aria-live="polite" data-testid={statusTestId}>
        Page {page} of {last}
      </span>
      <button type="button" className="btn btn-ghost" onClick={() => onChange(page + 1)} disabled={page >= last}>
        Next
      </button>
      <button type="button" className="btn btn-ghost" onClick={() => onChange(last)} disabled={page >= last}>
        Last
      </button>
    </nav>
  );
}
