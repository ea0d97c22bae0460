import { useHistory } from './useHistory';
import { decisionLabel, originLabel, timingSteps } from './review';
import { formatTimestamp, relativeTime } from '../../lib/time';

interface Props {
  postId: number;
  now: number;
  /** The list element's id, named by the toggle's aria-controls. */
  id: string;
}

/** Every version of a draft, oldest first, with who wrote it and when; then every decision on it and its channel. */
export function DraftHistory({ postId, now, id }: Props) {
  const { data, error, isLoading } = useHistory(postId, true);
  if (error) {
    return (
      <p id={id} className="review-warning" role="alert">
        Failed to fetch the history
      </p>
    );
  }
  if (isLoading || !data) {
    return (
      <p id={id} className="muted" role="status">
        Digging through the archives…
      </p>
    );
  }
  if (data.versions.length === 0) {
    return (
      <p id={id} className="muted">
        No draft yet
      </p>
    );
  }
  const decisions = data.decisions ?? [];
  const steps = timingSteps(data.timing);
  return (
    <div id={id}>
      {steps.length > 0 && (
        <p className="muted review-timing" data-testid="timing">
          {steps.join(' · ')}
        </p>
      )}
      <ol className="review-history" data-testid="history">
        {data.versions.map((v, i) => (
          <li key={`${i}-${v.at}`} className="review-version" data-testid="version" data-origin={v.origin}>
            <p className="review-version-head">
              <span className={`badge badge-origin badge-origin-${v.origin}`}>{originLabel(v.origin)}</span>
              <time dateTime={v.at} title={formatTimestamp(v.at)}>
                {relativeTime(v.at, now)}
              </time>
              {v.instruction && <span className="review-version-wish">&ldquo;{v.instruction}&rdquo;</span>}
            </p>
            <p className="review-version-text">{v.text}</p>
          </li>
        ))}
      </ol>
      {decisions.length > 0 && (
        <ol className="review-decisions" aria-label="Decisions" data-testid="decisions">
          {decisions.map((d, i) => (
            <li key={`${i}-${d.at}`} data-testid="decision" data-by={d.by}>
              {decisionLabel(d)},{' '}
              <time dateTime={d.at} title={formatTimestamp(d.at)}>
                {relativeTime(d.at, now)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
