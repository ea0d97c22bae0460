import { useId, type ReactNode } from 'react';

interface Props {
  title: string;
  className?: string;
  testId?: string;
  children: ReactNode;
}

/** A titled panel; the title labels the region for assistive technology. */
export function Card({ title, className, testId, children }: Props) {
  const headingId = useId();
  return (
    <section className={className ? `card ${className}` : 'card'} aria-labelledby={headingId} data-testid={testId}>
      <h2 id={headingId} className="card-title">
        {title}
      </h2>
      {children}
    </section>
  );
}

interface StatProps {
  label: string;
  value: ReactNode;
  testId?: string;
}

/** One label and value of a <dl className="stat-list">. */
export function Stat({ label, value, testId }: StatProps) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}
