import type { PersonaPreview as PreviewAnswer } from '../../api/types';
import { timeoutMessage } from './personaForm';
import { describedBy, type FieldError } from './fieldError';
import { PERSONA_MESSAGES } from './messages';

/** Where the preview stands. */
export type PreviewState =
  | { kind: 'idle' }
  | { kind: 'waiting' }
  | { kind: 'done'; answer: PreviewAnswer }
  | { kind: 'timeout'; detail?: string }
  | { kind: 'failed'; text: string };

interface Props {
  ids: string;
  postText: string;
  setPostText: (text: string) => void;
  preview: PreviewState;
  /** Drafts the preview with the form as it stands. */
  runPreview: () => void;
  /** The error a check or the server placed on the post to answer. */
  postErr: FieldError;
}

/** The preview: a post to answer, and the reply the writer drafts to it with the form as it stands. */
export function PersonaPreview({ ids, postText, setPostText, preview, runPreview, postErr }: Props) {
  return (
  <section className="persona-preview" aria-labelledby={`${ids}-preview-title`}>
    <h3 id={`${ids}-preview-title`} className="persona-subtitle">
      Preview
    </h3>
    <div className="field">
      <label htmlFor={`${ids}-post`}>A post to answer</label>
      <textarea
        id={`${ids}-post`}
        rows={3}
        value={postText}
        onChange={(e) => setPostText(e.target.value)}
        aria-invalid={postErr.invalid}
        aria-describedby={describedBy(`${ids}-post-hint`, postErr.errorId)}
        data-testid="preview-post"
      />
      <p id={`${ids}-post-hint`} className="field-hint">
        Drafted with the form as it stands, saved or not; no post is created.
      </p>
      {postErr.node}
    </div>
    <div className="settings-actions">
      <button
        type="button"
        className="btn btn-ghost"
        disabled={preview.kind === 'waiting' || postText.trim() === ''}
        onClick={runPreview}
        data-testid="preview-run"
      >
        Preview
      </button>
    </div>
    <div aria-live="polite">
      {preview.kind === 'waiting' && (
        <p className="persona-waiting" role="status" data-testid="preview-waiting">
          <span className="spinner" aria-hidden="true" />
          {PERSONA_MESSAGES.previewWaiting}
        </p>
      )}
      {preview.kind === 'done' && (
        <figure className="persona-answer" data-testid="preview-answer">
          <figcaption className="persona-answer-head">
            Reply{' '}
            {preview.answer.category && (
              <span className="badge badge-sin" data-testid="preview-category">
                {preview.answer.category}
              </span>
            )}
          </figcaption>
          <blockquote className="review-original" data-testid="preview-response">
            {preview.answer.response}
          </blockquote>
        </figure>
      )}
    </div>
    {preview.kind === 'timeout' && (
      <p className="banner banner-error" role="alert" data-testid="preview-timeout">
        {preview.detail ? timeoutMessage(preview.detail) : PERSONA_MESSAGES.previewTimeout}
      </p>
    )}
    {preview.kind === 'failed' && (
      <p className="banner banner-error" role="alert" data-testid="preview-failed">
        {preview.text}
      </p>
    )}
  </section>
  );
}
