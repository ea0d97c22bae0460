import { counterLevel, fillPercent, RESPONSE_LIMIT } from '../lib/length';

interface Props {
  /** The weighted length of the response. */
  length: number;
  /** Id of the counted field, so the counter describes it. */
  id?: string;
}

/** 'n / 280 characters' with a bar: normal up to 90 %, warning above, error over the limit. */
export function CharCounter({ length, id }: Props) {
  const level = counterLevel(length);
  const text = `${length} / ${RESPONSE_LIMIT} characters`;
  return (
    <div className={`counter is-${level}`} data-level={level}>
      <div
        className="meter"
        role="progressbar"
        aria-label="Response length"
        aria-valuemin={0}
        aria-valuemax={RESPONSE_LIMIT}
        aria-valuenow={Math.min(length, RESPONSE_LIMIT)}
        aria-valuetext={text}
      >
        <div className="meter-fill" style={{ width: `${fillPercent(length)}%` }} />
      </div>
      <p className="counter-text" id={id} data-testid="char-counter">
        {text}
      </p>
    </div>
  );
}
