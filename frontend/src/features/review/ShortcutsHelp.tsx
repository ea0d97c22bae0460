import { useEffect, useId, useRef } from 'react';
import { SHORTCUTS } from './shortcuts';

interface Props {
  open: boolean;
  onClose: () => void;
}

/** The "?" overlay: a modal dialog listing the review's keyboard shortcuts. */
export function ShortcutsHelp({ open, onClose }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog ref={ref} className="shortcuts-help" aria-labelledby={`${id}-title`} onClose={onClose} data-testid="shortcuts-help">
      <h2 id={`${id}-title`} className="shortcuts-title">
        Keyboard shortcuts
      </h2>
      <dl className="shortcuts-list">
        {SHORTCUTS.map((s) => (
          <div key={s.key}>
            <dt>
              <kbd>{s.key}</kbd>
            </dt>
            <dd>{s.label}</dd>
          </div>
        ))}
      </dl>
      <p className="field-hint">The card keys act on the card that holds the focus; none fires while typing in a field.</p>
      <button type="button" className="btn btn-primary" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
