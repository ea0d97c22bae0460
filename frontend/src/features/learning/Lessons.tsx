import { useId, useState, type FormEvent } from 'react';
import { useSWRConfig } from 'swr';
import { ApiError, errorDetail, statusOf } from '../../api/client';
import type { Lesson, Persona } from '../../api/types';
import { formatTimestamp } from '../../lib/time';
import { createLesson, deleteLesson, promoteLesson, updateLesson } from './api';
import { ConfirmButton } from './ConfirmButton';
import { kindLabel, lessonProblem, usedLabel } from './learning';
import { LessonText } from './LessonText';
import { LESSONS_KEY, useLessons } from './useLearning';

/** What a lesson action leaves: a success or an error, said once. */
interface Notice {
  kind: 'success' | 'error';
  text: string;
}

/** The server's objection to a lesson's text (a 400 naming `text`), else null. */
function textRefusal(err: unknown): string | null {
  return err instanceof ApiError && err.status === 400 && err.field === 'text' ? (err.serverMessage ?? err.message) : null;
}

interface Props {
  /** After a lesson was promoted into the persona's voice: the new persona version. */
  onPromoted: (persona: Persona) => void;
}

/** The lessons, most confirmed first, each turned on or off, edited, deleted or promoted; and a new one written by hand. */
export function Lessons({ onPromoted }: Props) {
  const ids = useId();
  const lessons = useLessons();
  const { mutate } = useSWRConfig();
  const [notice, setNotice] = useState<Notice | null>(null);
  const list = lessons.data?.lessons ?? [];

  /** Shows an action's failure; a refused session needs none (request() already left for the login). */
  function failed(err: unknown, what: string) {
    if (statusOf(err) !== 401) setNotice({ kind: 'error', text: `${what}: ${errorDetail(err)}` });
  }

  return (
    <section className="learning-part" aria-labelledby={`${ids}-title`} data-testid="learning-lessons">
      <h4 id={`${ids}-title`} className="learning-subtitle">
        Lessons
      </h4>
      <p className="field-hint">
        Short rules drawn from your edits and rejections, or written here. The enabled ones go into each prompt, the most
        confirmed first; promoting one writes it into the persona&apos;s voice.
      </p>
      <AddLesson
        onAdded={(added, text) => {
          setNotice({ kind: 'success', text: added ? `Lesson added: ${text}` : `Already known, now confirmed again: ${text}` });
          void mutate(LESSONS_KEY);
        }}
        onFailed={(err) => failed(err, 'Failed to add the lesson')}
      />
      <p aria-live="polite" className="learning-notice">
        {notice && (
          <span className={notice.kind === 'error' ? 'field-error' : 'learning-done'} role={notice.kind === 'error' ? 'alert' : 'status'} data-testid="lessons-notice">
            {notice.text}
          </span>
        )}
      </p>
      {lessons.error && statusOf(lessons.error) !== 401 ? (
        <p className="banner banner-error" role="alert">
          Failed to fetch the lessons
        </p>
      ) : !lessons.data ? (
        <p className="muted" role="status">
          Reading the ledger…
        </p>
      ) : list.length === 0 ? (
        <p className="empty" data-testid="lessons-empty">
          No lesson yet: they come from your edits and rejections, or add one above.
        </p>
      ) : (
        <ul className="learning-list" data-testid="lesson-list">
          {list.map((l) => (
            <LessonItem
              key={l.id}
              lesson={l}
              onChanged={(text) => {
                setNotice({ kind: 'success', text });
                void mutate(LESSONS_KEY);
              }}
              onPromoted={(persona, lesson) => {
                setNotice({ kind: 'success', text: `Promoted into the voice: persona version ${persona.version}. The lesson is now off: the voice says it.` });
                void mutate(LESSONS_KEY, { lessons: list.map((x) => (x.id === lesson.id ? lesson : x)) }, { revalidate: true });
                onPromoted(persona);
              }}
              onFailed={failed}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

interface AddProps {
  /** added is false when the server confirmed a near-duplicate instead (200, not 201). */
  onAdded: (added: boolean, text: string) => void;
  onFailed: (err: unknown) => void;
}

function AddLesson({ onAdded, onFailed }: AddProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const wrong = lessonProblem(text);
    setProblem(wrong);
    if (wrong) return;
    setBusy(true);
    try {
      const stored = await createLesson(text);
      setText('');
      // A near-duplicate raises the stored lesson's count: more than 1 means it was known.
      onAdded(stored.count <= 1, stored.text);
    } catch (err) {
      const refusal = textRefusal(err);
      if (refusal) setProblem(refusal);
      else onFailed(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="learning-add" onSubmit={(e) => void onSubmit(e)} noValidate data-testid="add-lesson">
      <LessonText
        label="A new lesson"
        value={text}
        onChange={(v) => {
          setText(v);
          setProblem(null);
        }}
        problem={problem}
        testId="new-lesson"
      />
      <button type="submit" className="btn btn-primary" disabled={busy}>
        Add lesson
      </button>
    </form>
  );
}

interface ItemProps {
  lesson: Lesson;
  /** After a change, with what to say. */
  onChanged: (text: string) => void;
  onPromoted: (persona: Persona, lesson: Lesson) => void;
  onFailed: (err: unknown, what: string) => void;
}

function LessonItem({ lesson, onChanged, onPromoted, onFailed }: ItemProps) {
  const ids = useId();
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(lesson.text);
  const [problem, setProblem] = useState<string | null>(null);
  // The switch follows the click at once; the stored state replaces it when it comes back.
  const [enabled, setEnabled] = useState(lesson.enabled);
  const [storedEnabled, setStoredEnabled] = useState(lesson.enabled);
  if (storedEnabled !== lesson.enabled) {
    setStoredEnabled(lesson.enabled);
    setEnabled(lesson.enabled);
  }
  const target = `lesson “${lesson.text}”`;

  async function act(what: string, run: () => Promise<unknown>) {
    setBusy(true);
    try {
      await run();
    } catch (err) {
      onFailed(err, what);
    } finally {
      setBusy(false);
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    const wrong = lessonProblem(draft);
    setProblem(wrong);
    if (wrong) return;
    setBusy(true);
    try {
      await updateLesson(lesson.id, { text: draft });
      setEditing(false);
      onChanged('Lesson saved');
    } catch (err) {
      const refusal = textRefusal(err);
      if (refusal) setProblem(refusal);
      else onFailed(err, 'Failed to save the lesson');
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className={`learning-item${enabled ? '' : ' is-off'}`} data-testid="lesson" data-lesson-id={lesson.id}>
      {editing ? (
        <form className="learning-edit" onSubmit={(e) => void save(e)} noValidate>
          <LessonText
            label="Lesson"
            value={draft}
            onChange={(v) => {
              setDraft(v);
              setProblem(null);
            }}
            problem={problem}
            testId="edit-lesson"
          />
          <div className="learning-actions">
            <button type="submit" className="btn btn-primary learning-btn" disabled={busy}>
              Save
            </button>
            <button
              type="button"
              className="btn btn-ghost learning-btn"
              onClick={() => {
                setEditing(false);
                setDraft(lesson.text);
                setProblem(null);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <p id={`${ids}-text`} className="learning-text" data-testid="lesson-text">
          {lesson.text}
        </p>
      )}
      <p className="learning-meta muted">
        <span className="badge">{kindLabel(lesson.kind)}</span> confirmed {lesson.count}× · {usedLabel(lesson.used_count)}
        {lesson.last_used_at && (
          <>
            , last <time dateTime={lesson.last_used_at}>{formatTimestamp(lesson.last_used_at)}</time>
          </>
        )}
      </p>
      <div className="learning-actions">
        <label className="learning-toggle">
          <input
            type="checkbox"
            checked={enabled}
            disabled={busy}
            aria-describedby={`${ids}-text`}
            onChange={(e) => {
              const on = e.target.checked;
              setEnabled(on);
              void act('Failed to change the lesson', async () => {
                try {
                  await updateLesson(lesson.id, { enabled: on });
                } catch (err) {
                  setEnabled(lesson.enabled);
                  throw err;
                }
                onChanged(on ? 'Lesson on: it goes into prompts' : 'Lesson off: it goes into no prompt');
              });
            }}
            data-testid="lesson-enabled"
          />
          In prompts
        </label>
        {!editing && (
          <button
            type="button"
            className="btn btn-ghost learning-btn"
            disabled={busy}
            onClick={() => {
              setDraft(lesson.text);
              setEditing(true);
            }}
            aria-label={`Edit: ${target}`}
          >
            Edit
          </button>
        )}
        <button
          type="button"
          className="btn btn-ghost learning-btn"
          disabled={busy}
          onClick={() =>
            void act('Failed to promote the lesson', async () => {
              const promoted = await promoteLesson(lesson.id);
              onPromoted(promoted.persona, promoted.lesson);
            })
          }
          aria-label={`Promote to voice: ${target}`}
        >
          Promote to voice
        </button>
        <ConfirmButton
          label="Delete"
          target={target}
          busy={busy}
          onConfirm={() =>
            void act('Failed to delete the lesson', async () => {
              await deleteLesson(lesson.id);
              onChanged('Lesson deleted');
            })
          }
        />
      </div>
    </li>
  );
}
