import { useId } from 'react';
import type { BulkAction } from './review';

interface Props {
  /** How many cards of the page are selected. */
  selected: number;
  /** How many cards of the page may be selected. */
  selectable: number;
  busy: boolean;
  onSelectAll: () => void;
  onAct: (action: BulkAction) => void;
}

/** Bulk review of the page shown: select all, and approve or reject the selected cards together. */
export function BulkBar({ selected, selectable, busy, onSelectAll, onAct }: Props) {
  const id = useId();
  if (selectable === 0) return null;
  const all = selected === selectable;
  return (
    <div className={`bulk-bar${selected > 0 ? ' is-active' : ''}`} role="group" aria-label="Bulk review" data-testid="bulk-bar">
      <div className="field-inline">
        <input
          id={`${id}-all`}
          type="checkbox"
          checked={all}
          ref={(el) => {
            if (el) el.indeterminate = selected > 0 && !all;
          }}
          onChange={onSelectAll}
          data-testid="select-all"
        />
        <label htmlFor={`${id}-all`}>Select all on this page</label>
      </div>
      <p className="bulk-count" aria-live="polite" data-testid="selected-count">
        {selected} selected
        <span className="bulk-hint"> · x or Space selects the focused card, j and k move between cards, ? lists every key</span>
      </p>
      <div className="bulk-actions">
        <button
          type="button"
          className="btn btn-success"
          disabled={busy || selected === 0}
          onClick={() => onAct('approve')}
          data-testid="approve-selected"
        >
          Approve selected
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy || selected === 0}
          onClick={() => onAct('reject')}
          data-testid="reject-selected"
        >
          Reject selected
        </button>
      </div>
    </div>
  );
}
