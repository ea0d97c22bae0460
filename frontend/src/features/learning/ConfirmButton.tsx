import { useState } from 'react';

interface Props {
  /** The action's name, e.g. "Delete". */
  label: string;
  /** What it acts on, for assistive technology: "Delete: case 4". */
  target: string;
  busy: boolean;
  onConfirm: () => void;
}

/** A destructive action asked twice: the first press shows "Really?" with the action and Keep. */
export function ConfirmButton({ label, target, busy, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="btn btn-ghost learning-btn" disabled={busy} onClick={() => setAsking(true)} aria-label={`${label}: ${target}`}>
        {label}
      </button>
    );
  }
  return (
    <span className="learning-confirm" role="group" aria-label={`${label}: ${target}?`}>
      <span className="learning-confirm-ask">Really?</span>
      <button
        type="button"
        className="btn btn-danger learning-btn"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {label}
      </button>
      <button type="button" className="btn btn-ghost learning-btn" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
