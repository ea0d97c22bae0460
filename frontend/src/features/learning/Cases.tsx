import { useId, useState, type FormEvent } from 'react';
import { errorDetail, statusOf } from '../../api/client';
import type { Case } from '../../api/types';
import { PagedList } from '../../components/PagedList';
import { pageAfterRemoval } from '../../lib/pagination';
import { platformLabel } from '../../lib/platforms';
import { formatTimestamp } from '../../lib/time';
import { deleteCase } from './api';
import { ConfirmButton } from './ConfirmButton';
import { caseDecisionLabel, usedLabel } from './learning';
import { useCases } from './useLearning';

/** The case memory, newest first: searched by words, a page at a time, each case taken out with Delete. */
export function Cases() {
  const ids = useId();
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [failure, setFailure] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<number | null>(null);
  const cases = useCases(page, q);
  const items = cases.data?.cases;

  function search(e: FormEvent) {
    e.preventDefault();
    setQ(typed.trim());
    setPage(1);
  }

  async function remove(c: Case) {
    setBusyId(c.id);
    setFailure(null);
    try {
      await deleteCase(c.id);
      setPage(pageAfterRemoval(page, items?.length ?? 0));
      await cases.mutate();
    } catch (err) {
      if (statusOf(err) !== 401) setFailure(`Failed to delete the case: ${errorDetail(err)}`);
    } finally {
      setBusyId(null);
    }
  }

  return (
    <section className="learning-part" aria-labelledby={`${ids}-title`} data-testid="learning-cases">
      <h4 id={`${ids}-title`} className="learning-subtitle">
        Past replies
      </h4>
      <p className="field-hint">
        Every decision on a draft, and every imported reply. The most similar replies approved become a new draft&apos;s
        examples; a rejected one never does. Deleting a case takes it out of the memory; the post and its history stay.
      </p>
      <form className="learning-search" role="search" aria-label="Search the past replies" onSubmit={search}>
        <label htmlFor={`${ids}-q`}>Search</label>
        <input
          id={`${ids}-q`}
          type="search"
          value={typed}
          maxLength={200}
          onChange={(e) => setTyped(e.target.value)}
          placeholder="words of the post or the reply"
          data-testid="cases-q"
        />
        <button type="submit" className="btn btn-ghost">
          Search
        </button>
      </form>
      {q && (
        <p className="muted" role="status" data-testid="cases-found">
          {cases.data ? `${cases.data.pagination.total} matching “${q}”` : `Searching “${q}”…`}
        </p>
      )}
      {failure && (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
      <PagedList
        items={items}
        error={cases.error}
        page={page}
        totalPages={cases.data?.pagination.totalPages}
        onPage={setPage}
        errorText="Failed to fetch the past replies"
        emptyText={q ? 'No past reply matches these words.' : 'No past reply yet: decide on drafts, or import your own.'}
        emptyTestId="cases-empty"
        className="learning-list"
        pagesLabel="Pages of past replies"
        statusTestId="cases-page"
      >
        {(c) => <CaseItem key={c.id} item={c} busy={busyId === c.id} onDelete={() => void remove(c)} />}
      </PagedList>
    </section>
  );
}

function CaseItem({ item: c, busy, onDelete }: { item: Case; busy: boolean; onDelete: () => void }) {
  const who = c.author ? `@${c.author}` : null;
  return (
    <li className="learning-item" data-testid="case" data-case-id={c.id} data-decision={c.decision}>
      <blockquote className="learning-post">
        {who && <span className="visually-hidden">{who} wrote: </span>}
        {c.mention_text}
      </blockquote>
      <p className="learning-text">
        <span className="visually-hidden">{c.decision === 'rejected' ? 'Rejected draft: ' : 'Reply: '}</span>
        {c.final_text}
      </p>
      {c.decision === 'edited' && c.draft_text && (
        <p className="learning-draft muted">
          <span className="learning-label">First draft: </span>
          {c.draft_text}
        </p>
      )}
      {c.reason && (
        <p className="learning-draft">
          <span className="learning-label">Reason: </span>
          {c.reason}
        </p>
      )}
      <p className="learning-meta muted">
        <span className={`badge badge-case-${c.decision}`}>{caseDecisionLabel(c)}</span> {platformLabel(c.platform)}
        {who && <> · {who}</>} · <time dateTime={c.created_at}>{formatTimestamp(c.created_at)}</time> · {usedLabel(c.used_count)}
        {c.engagement !== null && <> · engagement {c.engagement}</>}
      </p>
      <div className="learning-actions">
        <ConfirmButton label="Delete" target={`case ${c.id}`} busy={busy} onConfirm={onDelete} />
      </div>
    </li>
  );
}
