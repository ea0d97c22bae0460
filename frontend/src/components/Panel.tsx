import type { ReactNode } from 'react';
import './panel.css';

interface Props {
  /** The heading's id, which names the section. */
  titleId: string;
  title: ReactNode;
  /** Classes added to panel. */
  className?: string;
  testId?: string;
  children: ReactNode;
}

/** A section of the admin area in its frame: a bordered panel under its heading. */
export function Panel({ titleId, title, className, testId, children }: Props) {
  return (
    <section className={className ? `panel ${className}` : 'panel'} aria-labelledby={titleId} data-testid={testId}>
      <h2 id={titleId} className="panel-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
