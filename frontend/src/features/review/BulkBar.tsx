import { useId, useState } from 'react';
import { reasonProblem } from './learned';
import { ReasonField } from './ReasonField';
import type { BulkAction } from './review';

interface Props {
  /** How many cards of the page are selected. */
  selected: number;
  /** How many cards of the page may be selected. */
  selectable: number;
  busy: boolean;
  onSelectAll: () => void;
  /** reason is the admin's optional why of a rejection (blank is none). */
  onAct: (action: BulkAction, reason: string) => void;
}

/** Bulk review of the page shown: select all, and approve or reject the selected cards together, a rejection with a reason. */
export function BulkBar({ selected, selectable, busy, onSelectAll, onAct }: Props) {
  const id = useId();
  const [reason, setReason] = useState('');
  if (selectable === 0) return null;
  const reasonIssue = reasonProblem(reason);
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
      {selected > 0 && (
        <ReasonField
          id={`${id}-reason`}
          label="Reason if you reject them (optional)"
          value={reason}
          onChange={setReason}
          className="bulk-reason"
          testId="bulk-reason"
        />
      )}
      <div className="bulk-actions">
        <button
          type="button"
          className="btn btn-success"
          disabled={busy || selected === 0}
          onClick={() => onAct('approve', '')}
          data-testid="approve-selected"
        >
          Approve selected
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy || selected === 0 || reasonIssue !== null}
          onClick={() => {
            onAct('reject', reason);
            setReason('');
          }}
          data-testid="reject-selected"
        >
          Reject selected
        </button>
      </div>
    </div>
  );
}
