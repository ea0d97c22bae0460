import { useId } from 'react';
import type { Persona } from '../../api/types';
import { CaseImport } from './CaseImport';
import { Cases } from './Cases';
import { Lessons } from './Lessons';
import './learning.css';

interface Props {
  /** After a lesson was promoted into the persona's voice: the new persona version. */
  onPromoted: (persona: Persona) => void;
}

/** "What it learned": the lessons, the past replies (the case memory) and their import, under the administrator's control. */
export function LearningPanel({ onPromoted }: Props) {
  const ids = useId();
  return (
    <section className="learning-panel" aria-labelledby={`${ids}-title`} data-testid="learning-panel">
      <h3 id={`${ids}-title`} className="learning-title">
        What it learned
      </h3>
      <p className="field-hint">
        Each draft is shaped by the most similar past replies you approved and by these lessons; its card says which.
        Turn learning off, or set how many of each, in Settings.
      </p>
      <Lessons onPromoted={onPromoted} />
      <Cases />
      <CaseImport />
    </section>
  );
}
