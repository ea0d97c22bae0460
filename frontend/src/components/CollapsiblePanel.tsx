import { useId, useState, type ReactNode } from 'react';
import './collapsiblePanel.css';

/** The page a CollapsiblePanel's list shows, and the way to another. */
export interface Paging {
  page: number;
  setPage: (page: number) => void;
}

interface Props {
  title: string;
  /** The toggle's text while closed and while open. */
  showLabel: string;
  hideLabel: string;
  testId: string;
  /** When it changes (another platform), the list starts again on page 1. */
  resetKey?: string;
  /** The body, rendered only while open: its reads start when the admin opens it. */
  children: (paging: Paging) => ReactNode;
}

/**
 * A panel below the review tabs, closed until the admin opens it, whose body
 * is a paged list (the posts waiting to send, the skipped and failed ones).
 * It keeps the page while closed.
 */
export function CollapsiblePanel({ title, showLabel, hideLabel, testId, resetKey, children }: Props) {
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const [listedKey, setListedKey] = useState(resetKey);
  if (listedKey !== resetKey) {
    setListedKey(resetKey);
    setPage(1);
  }
  return (
    <section className="collapsible-panel" aria-labelledby={`${ids}-title`} data-testid={testId}>
      <div className="collapsible-panel-head">
        <h2 id={`${ids}-title`} className="collapsible-panel-title">
          {title}
        </h2>
        <button
          type="button"
          className="btn btn-ghost"
          aria-expanded={open}
          aria-controls={`${ids}-body`}
          onClick={() => setOpen(!open)}
        >
          {open ? hideLabel : showLabel}
        </button>
      </div>
      {open && <div id={`${ids}-body`}>{children({ page, setPage })}</div>}
    </section>
  );
}
