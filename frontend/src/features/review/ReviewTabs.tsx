import { useRef, type KeyboardEvent } from 'react';
import { TABS } from './reviewQueues';

/** The id of tab i's button. */
export function tabElementId(i: number): string {
  return `tab-${TABS[i].id}`;
}

/** The id of tab i's panel. */
export function panelElementId(i: number): string {
  return `panel-${TABS[i].id}`;
}

interface Props {
  /** The selected tab's index. */
  tab: number;
  onChange: (tab: number) => void;
}

/** The review queues' tab list: click, or arrows, Home and End from the keyboard (focus follows). */
export function ReviewTabs({ tab, onChange }: Props) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);

  /** Keys move from the focused tab, which may be ahead of the selected one while its update renders. */
  function onKeyDown(e: KeyboardEvent<HTMLButtonElement>, focused: number) {
    const keys: Record<string, number> = {
      ArrowRight: (focused + 1) % TABS.length,
      ArrowLeft: (focused + TABS.length - 1) % TABS.length,
      Home: 0,
      End: TABS.length - 1,
    };
    const next = keys[e.key];
    if (next === undefined) return;
    e.preventDefault();
    onChange(next);
    refs.current[next]?.focus();
  }

  return (
    <div className="tabs" role="tablist" aria-label="Review queues">
      {TABS.map(({ id, label }, i) => (
        <button
          key={id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={tabElementId(i)}
          aria-selected={tab === i}
          aria-controls={panelElementId(i)}
          tabIndex={tab === i ? 0 : -1}
          className="tab"
          onClick={() => onChange(i)}
          onKeyDown={(e) => onKeyDown(e, i)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
