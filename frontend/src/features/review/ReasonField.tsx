import { MAX_REASON, reasonLength, reasonProblem } from './learned';

interface Props {
  /** The input's id; the count and the problem take it as their prefix. */
  id: string;
  label: string;
  value: string;
  onChange: (reason: string) => void;
  className: string;
  testId: string;
  placeholder?: string;
}

/** The optional reason of a rejection: a line of text, its count out of 200, and why it is refused when longer. */
export function ReasonField({ id, label, value, onChange, className, testId, placeholder }: Props) {
  const problem = reasonProblem(value);
  return (
    <div className={`field ${className}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        maxLength={MAX_REASON + 20}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-count${problem ? ` ${id}-problem` : ''}`}
        data-testid={testId}
      />
      <p id={`${id}-count`} className={`review-reason-count${problem ? ' is-over' : ''}`} data-testid={`${testId}-count`}>
        {reasonLength(value)} / {MAX_REASON} characters
      </p>
      {problem && (
        <p id={`${id}-problem`} className="review-warning">
          {problem}
        </p>
      )}
    </div>
  );
}
