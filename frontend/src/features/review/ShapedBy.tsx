import { useState } from 'react';
import useSWR from 'swr';
import type { History, LearnedFrom } from '../../api/types';
import { goneSince, shapedByLine } from './learned';
import { historyKey } from './useHistory';
import './learned.css';

interface Props {
  postId: number;
  /** What shaped the draft shown; nothing is shown when it names nothing. */
  learnedFrom: LearnedFrom | null | undefined;
}

/**
 * "Shaped by 3 past replies · 2 lessons": what the persona had learned that
 * went into the draft, with a disclosure listing each past case (its post and
 * the reply approved) and each lesson's text, read from the post's history
 * when first opened.
 */
export function ShapedBy({ postId, learnedFrom }: Props) {
  const [open, setOpen] = useState(false);
  const line = shapedByLine(learnedFrom);
  if (!line || !learnedFrom) return null;
  return (
    <details className="review-shaped" data-testid="shaped-by" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{line}</summary>
      {open && <ShapedByList postId={postId} learnedFrom={learnedFrom} />}
    </details>
  );
}

function ShapedByList({ postId, learnedFrom }: { postId: number; learnedFrom: LearnedFrom }) {
  // The history answers the cases and lessons named, with their texts; the same read as the card's History.
  const { data, error } = useSWR<Pick<History, 'learned'>>(historyKey(postId));
  if (error) {
    return (
      <p className="review-warning" role="alert">
        Failed to fetch what shaped the draft
      </p>
    );
  }
  if (!data) {
    return (
      <p className="muted" role="status">
        Digging through the archives…
      </p>
    );
  }
  const cases = data.learned?.cases ?? [];
  const lessons = data.learned?.lessons ?? [];
  const gone = goneSince(learnedFrom, { cases: cases.length, lessons: lessons.length });
  return (
    <div className="review-shaped-body" data-testid="shaped-by-list">
      {cases.length > 0 && (
        <>
          <p className="review-shaped-title">Past replies given as examples</p>
          <ol className="review-shaped-cases">
            {cases.map((c) => (
              <li key={c.id} data-testid="shaped-case">
                <blockquote className="review-shaped-post">{c.mention_text}</blockquote>
                <p className="review-shaped-reply">
                  <span className="visually-hidden">Reply approved: </span>
                  {c.final_text}
                </p>
              </li>
            ))}
          </ol>
        </>
      )}
      {lessons.length > 0 && (
        <>
          <p className="review-shaped-title">Lessons in its prompt</p>
          <ul className="review-shaped-lessons">
            {lessons.map((l) => (
              <li key={l.id} data-testid="shaped-lesson">
                {l.text}
              </li>
            ))}
          </ul>
        </>
      )}
      {gone && <p className="muted">{gone}.</p>}
    </div>
  );
}
