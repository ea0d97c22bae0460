import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { useLogs, type LogsState } from '../api/useLogs';
import { PageShell } from '../components/PageShell';
import { preview } from '../lib/text';
import { threadText, type Message, type Thread } from '../lib/threads';
import { formatTimestamp } from '../lib/time';
// After styles.css: this page's rules load with its lazy chunk.
import './backroom.css';

const STATUS_TEXT: Record<LogsState, string> = {
  loading: 'ESTABLISHING INFERNAL CONNECTION...',
  ready: 'INFERNAL CONNECTION ESTABLISHED',
  error: 'CONNECTION TO HELL TEMPORARILY DISRUPTED',
};

const TYPE_LABEL: Record<Thread['type'], string> = {
  MORTAL_INTERACTION: 'MORTAL INTERACTION',
  CONSCIOUSNESS_BROADCAST: 'CONSCIOUSNESS BROADCAST',
};

function MessageView({ message, broadcast }: { message: Message; broadcast: boolean }) {
  const who = message.authorUsername ? `@${message.authorUsername}` : message.authorName || 'unknown mortal';
  return (
    <article className="log-message" data-testid="log-message">
      {!broadcast && message.originalText && (
        <div className="log-block log-mortal">
          <p className="log-label">
            MORTAL {who}
            {message.authorName && message.authorUsername ? ` (${message.authorName})` : ''}
          </p>
          <p className="log-text">{message.originalText}</p>
        </div>
      )}
      <div className="log-block log-infernal">
        <p className="log-label">{broadcast ? 'BROADCAST' : 'INFERNAL RESPONSE'}</p>
        <p className="log-text">{message.response}</p>
      </div>
      <dl className="log-meta">
        <div>
          <dt>TIME</dt>
          <dd>{formatTimestamp(message.timestamp)}</dd>
        </div>
        {message.category && (
          <div>
            <dt>SIN</dt>
            <dd>{message.category.toUpperCase()}</dd>
          </div>
        )}
        <div>
          <dt>TEMPERATURE</dt>
          <dd>{message.temperature}</dd>
        </div>
        <div>
          <dt>PRESENCE PENALTY</dt>
          <dd>{message.presencePenalty}</dd>
        </div>
        <div>
          <dt>FREQUENCY PENALTY</dt>
          <dd>{message.frequencyPenalty}</dd>
        </div>
      </dl>
    </article>
  );
}

export default function Backroom() {
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<Thread | null>(null);
  const detailsRef = useRef<HTMLElement>(null);
  const { state, threads, hasMore, errorText } = useLogs(page);

  // Show the freshest copy of the selected thread when a poll brought one.
  const current = selected ? (threads.find((t) => t.id === selected.id) ?? selected) : null;
  const shown = state === 'error' ? null : current;

  function select(thread: Thread) {
    setSelected(thread);
    // On narrow screens the details sit below the list: bring them into view.
    if (window.matchMedia('(max-width: 800px)').matches) {
      detailsRef.current?.scrollIntoView({ block: 'start' });
    }
  }

  return (
    <PageShell className="terminal-shell">
      <header className="terminal-header">
        <h1 className="terminal-title">
          <span aria-hidden="true">&gt;_ </span>INFERNAL CONSCIOUSNESS TERMINAL
        </h1>
        <Link className="btn btn-ghost" to="/">
          Return to the Gates
        </Link>
      </header>

      <p className={`terminal-status is-${state}`} role="status" data-testid="terminal-status">
        <span className="status-dot" aria-hidden="true" /> {STATUS_TEXT[state]}
      </p>

      <main className="terminal-panels">
        <section className="terminal-panel" aria-labelledby="streams-title">
          <h2 id="streams-title" className="terminal-panel-title">
            consciousness streams
          </h2>
          {state === 'error' ? (
            <div className="terminal-error" role="alert">
              <p>INFERNAL CONNECTION DISRUPTED</p>
              <p data-testid="terminal-error">{errorText}</p>
            </div>
          ) : threads.length === 0 ? (
            <p className="terminal-empty">{state === 'loading' ? 'SCANNING THE ABYSS...' : 'NO LOGS AVAILABLE'}</p>
          ) : (
            <ul className="thread-list" data-testid="thread-list">
              {threads.map((t) => (
                <li key={t.id}>
                  <button
                    type="button"
                    className="thread-item"
                    aria-pressed={shown?.id === t.id}
                    onClick={() => select(t)}
                    data-testid="thread-item"
                  >
                    <span className="thread-meta">
                      <span className={`thread-type type-${t.type.toLowerCase()}`}>{TYPE_LABEL[t.type]}</span>
                      <span className="thread-time">{formatTimestamp(t.timestamp)}</span>
                    </span>
                    <span className="thread-preview">{preview(threadText(t))}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <nav className="pager" aria-label="Log pages">
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => setPage((p) => Math.max(0, p - 1))}
              disabled={page === 0}
            >
              PREVIOUS
            </button>
            <span className="pager-page" aria-live="polite" data-testid="logs-page">
              PAGE {page + 1}
            </span>
            <button type="button" className="btn btn-ghost" onClick={() => setPage((p) => p + 1)} disabled={!hasMore}>
              NEXT
            </button>
          </nav>
        </section>

        <section className="terminal-panel" aria-labelledby="details-title" ref={detailsRef}>
          <h2 id="details-title" className="terminal-panel-title">
            interaction details
          </h2>
          {shown ? (
            <div className="thread-detail" data-testid="thread-detail">
              <p className="thread-detail-head">
                {TYPE_LABEL[shown.type]} · {formatTimestamp(shown.timestamp)}
              </p>
              {shown.messages.map((m) => (
                <MessageView key={m.id} message={m} broadcast={shown.type === 'CONSCIOUSNESS_BROADCAST'} />
              ))}
            </div>
          ) : (
            <p className="terminal-empty">SELECT A CONSCIOUSNESS STREAM</p>
          )}
        </section>
      </main>
    </PageShell>
  );
}
