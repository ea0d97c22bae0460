import { counterLevel, fillPercent, RESPONSE_LIMIT } from '../lib/length';

interface Props {
  /** The length of the text: weighted for a response or an example. */
  length: number;
  /** Id of the counted field, so the counter describes it. */
  id?: string;
  /** The limit counted against (the response limit unless given). */
  limit?: number;
  /** What the bar measures, for assistive technology. */
  label?: string;
  testId?: string;
}

/** 'n / 280 characters' with a bar: normal up to 90 %, warning above, error over the limit. */
export function CharCounter({ length, id, limit = RESPONSE_LIMIT, label = 'Response length', testId = 'char-counter' }: Props) {
  const level = counterLevel(length, limit);
  const text = `${length} / ${limit} characters`;
  return (
    <div className={`counter is-${level}`} data-level={level}>
      <div
        className="meter"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(length, limit)}
        aria-valuetext={text}
      >
        <div className="meter-fill" style={{ width: `${fillPercent(length, limit)}%` }} />
      </div>
      <p className="counter-text" id={id} data-testid={testId}>
        {text}
      </p>
    </div>
  );
}
