import { useId, useState } from 'react';
import useSWR from 'swr';
import { errorDetail } from '../../api/client';
import type { DocumentList, KnowledgeSearch } from '../../api/types';
import {
  KNOWLEDGE_KEY,
  deleteDocument,
  fileProblem,
  rankingLabel,
  searchKey,
  setEnabled,
  titleOf,
  uploadDocument,
} from './api';
import './knowledge.css';

/** The Persona section's Knowledge area: upload, list, enable, delete and search the documents the persona cites. */
export default function KnowledgePanel() {
  const ids = useId();
  const list = useSWR<DocumentList>(KNOWLEDGE_KEY);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState('');
  const search = useSWR<KnowledgeSearch>(searchKey(asked));

  async function upload(file: File) {
    const why = fileProblem(file);
    if (why) {
      setProblem(why);
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await uploadDocument(titleOf(file.name), await file.text());
      await list.mutate();
    } catch (err) {
      setProblem(errorDetail(err));
    } finally {
      setBusy(false);
    }
  }

  async function act(fn: () => Promise<unknown>) {
    setProblem(null);
    try {
      await fn();
      await list.mutate();
    } catch (err) {
      setProblem(errorDetail(err));
    }
  }

  const docs = list.data?.documents ?? [];
  return (
    <section className="knowledge" aria-labelledby={`${ids}-title`} data-testid="knowledge">
      <h3 id={`${ids}-title`} className="knowledge-title">
        Knowledge
      </h3>
      <p className="muted">
        Facts the persona may cite: .md or .txt, at most 1 MB each and 200 documents. The best matches go into a
        reply&rsquo;s prompt.
      </p>
      <p className="knowledge-upload">
        <label htmlFor={`${ids}-file`}>Upload a document</label>
        <input
          id={`${ids}-file`}
          type="file"
          accept=".md,.txt,.markdown,text/markdown,text/plain"
          disabled={busy}
          data-testid="knowledge-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void upload(file);
          }}
        />
      </p>
      {problem && (
        <p className="banner banner-error" role="alert" data-testid="knowledge-error">
          {problem}
        </p>
      )}
      {list.error ? (
        <p className="banner banner-error" role="alert">
          Failed to fetch the documents
        </p>
      ) : !list.data ? (
        <p className="muted" role="status">
          Reading the library…
        </p>
      ) : docs.length === 0 ? (
        <p className="muted">No documents yet</p>
      ) : (
        <ul className="knowledge-list" data-testid="knowledge-list">
          {docs.map((d) => (
            <li key={d.id} className="knowledge-doc" data-testid="knowledge-doc">
              <span className="knowledge-doc-title">{d.title}</span>
              <span className="muted knowledge-doc-meta">
                {d.chunks} {d.chunks === 1 ? 'chunk' : 'chunks'} · {Math.max(1, Math.round(d.bytes / 1024))} KB
              </span>
              <label className="knowledge-doc-enabled">
                <input
                  type="checkbox"
                  checked={d.enabled}
                  onChange={(e) => void act(() => setEnabled(d.id, e.target.checked))}
                />{' '}
                Enabled<span className="visually-hidden"> {d.title}</span>
              </label>
              <button
                type="button"
                className="btn btn-danger knowledge-doc-delete"
                onClick={() => void act(() => deleteDocument(d.id))}
              >
                Delete<span className="visually-hidden"> {d.title}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="knowledge-search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked(q);
        }}
      >
        <label htmlFor={`${ids}-q`}>What would a post like this get?</label>
        <div className="knowledge-search-row">
          <input
            id={`${ids}-q`}
            type="search"
            value={q}
            maxLength={2000}
            onChange={(e) => setQ(e.target.value)}
            data-testid="knowledge-q"
          />
          <button type="submit" className="btn">
            Search
          </button>
        </div>
      </form>
      {asked.trim() && search.data && (
        <div data-testid="knowledge-results">
          {search.data.facts.length === 0 ? (
            <p className="muted">No facts: a post like this gets none</p>
          ) : (
            <>
              <ol className="knowledge-facts">
                {search.data.facts.map((f) => (
                  <li key={f.chunk_id} className="knowledge-fact" data-testid="knowledge-fact">
                    <p className="knowledge-fact-title">
                      {f.title}
                      {typeof f.score === 'number' && <span className="muted"> · {f.score.toFixed(2)}</span>}
                    </p>
                    <p className="knowledge-fact-text">{f.text}</p>
                  </li>
                ))}
              </ol>
              <p className="muted knowledge-ranking" data-testid="knowledge-ranking">
                {rankingLabel(search.data.ranking)}
              </p>
            </>
          )}
        </div>
      )}
    </section>
  );
}
