import { useId } from 'react';
import { CharCounter } from '../../components/CharCounter';
import { lessonLength, MAX_LESSON } from './learning';

interface Props {
  label: string;
  value: string;
  onChange: (text: string) => void;
  /** The check's or the server's objection, shown beside the field. */
  problem: string | null;
  testId: string;
}

/** A lesson's text field with its counter and its objection. */
export function LessonText({ label, value, onChange, problem, testId }: Props) {
  const id = useId();
  return (
    <div className="field learning-lesson-text">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        maxLength={MAX_LESSON + 20}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-count${problem ? ` ${id}-problem` : ''}`}
        data-testid={testId}
      />
      <CharCounter length={lessonLength(value)} limit={MAX_LESSON} id={`${id}-count`} label="Lesson length" testId={`${testId}-counter`} />
      {problem && (
        <p id={`${id}-problem`} className="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
