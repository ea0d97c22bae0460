import { CharCounter } from '../../components/CharCounter';
import { weightedLength } from '../../lib/length';
import { moved, withAdded, withItem, withoutItem } from './listEdit';
import { AVOID_TOPIC_LIMIT, EXAMPLE_LIMIT, MAX_AVOID_TOPICS, MAX_EXAMPLES, type PersonaList } from './personaForm';
import { describedBy, type ErrorFor } from './fieldError';

const LIST_TEXT: Record<PersonaList, { label: string; hint: string; add: string; item: string }> = {
  examples: {
    label: 'Examples',
    hint: `Replies in the persona's voice, up to ${MAX_EXAMPLES}, each at most ${EXAMPLE_LIMIT} weighted characters.`,
    add: 'Add example',
    item: 'Example',
  },
  avoid_topics: {
    label: 'Topics to avoid',
    hint: `Subjects the persona never jokes about, up to ${MAX_AVOID_TOPICS}, each one line of at most ${AVOID_TOPIC_LIMIT} characters.`,
    add: 'Add topic',
    item: 'Topic',
  },
};

interface Props {
  /** The list edited: the examples or the topics to avoid. */
  field: PersonaList;
  list: string[];
  onChange: (list: string[]) => void;
  errorFor: ErrorFor;
  /** The editor's useId, the prefix of every id. */
  ids: string;
}

/** One of the persona's lists: its entries, each moved, removed or edited in place, and the button that adds one. */
export function PersonaListEditor({ field, list, onChange, errorFor, ids }: Props) {
  const text = LIST_TEXT[field];
  
  const listErr = errorFor(field);
  const full = list.length >= (field === 'examples' ? MAX_EXAMPLES : MAX_AVOID_TOPICS);
  return (
    <fieldset className="persona-list" data-testid={`persona-${field}`}>
      <legend>{text.label}</legend>
      <p id={`${ids}-${field}-hint`} className="field-hint">
        {text.hint}
      </p>
      {list.length > 0 && (
        <ol className="persona-items">
          {list.map((value, i) => {
            const err = errorFor(field, i);
            const inputId = `${ids}-${field}-${i}`;
            const countId = `${inputId}-count`;
            const label = `${text.item} ${i + 1}`;
            return (
              // Rows have no identity beyond their place; a removal re-renders the rest.
              <li key={i} className="persona-item" data-testid={`persona-${field}-item`}>
                <div className="field">
                  <label htmlFor={inputId} className="visually-hidden">
                    {label}
                  </label>
                  {field === 'examples' ? (
                    <textarea
                      id={inputId}
                      rows={2}
                      value={value}
                      onChange={(e) => onChange(withItem(list, i, e.target.value))}
                      aria-invalid={err.invalid}
                      aria-describedby={describedBy(countId, err.errorId)}
                    />
                  ) : (
                    <input
                      id={inputId}
                      type="text"
                      value={value}
                      onChange={(e) => onChange(withItem(list, i, e.target.value))}
                      aria-invalid={err.invalid}
                      aria-describedby={err.errorId}
                    />
                  )}
                  {field === 'examples' && (
                    <CharCounter length={weightedLength(value)} id={countId} label={`${label} length`} testId="example-counter" />
                  )}
                  {err.node}
                </div>
                <div className="persona-item-actions">
                  <button
                    type="button"
                    className="btn btn-ghost btn-small"
                    disabled={i === 0}
                    onClick={() => onChange(moved(list, i, -1))}
                    aria-label={`Move ${label.toLowerCase()} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="btn btn-ghost btn-small"
                    disabled={i === list.length - 1}
                    onClick={() => onChange(moved(list, i, 1))}
                    aria-label={`Move ${label.toLowerCase()} down`}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    className="btn btn-ghost btn-small"
                    onClick={() => onChange(withoutItem(list, i))}
                    aria-label={`Remove ${label.toLowerCase()}`}
                  >
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <button
        type="button"
        className="btn btn-ghost persona-add"
        disabled={full}
        onClick={() => onChange(withAdded(list, ''))}
        data-testid={`persona-add-${field}`}
      >
        {text.add}
      </button>
      {listErr.node}
    </fieldset>
  );
}
