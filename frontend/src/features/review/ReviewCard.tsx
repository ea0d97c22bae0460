import { useId, useState } from 'react';
import type { Post } from '../../api/types';
import { flagSummary, needsOverride } from './flags';
import { isLowScore, reviewDetail } from './judgement';
import { isTooLong, responseLength, responseLimit } from '../../lib/length';
import { usePlatforms } from '../../api/usePlatforms';
import { instructionProblem, MAX_INSTRUCTION } from './review';
import { formatUSD } from '../../lib/spend';
import { formatAge } from '../../lib/time';
import { CharCounter } from '../../components/CharCounter';
import { DraftHistory } from './DraftHistory';
import { FactsUsed } from '../knowledge';
import { InConversation } from './InConversation';
import { PostMedia } from './PostMedia';
import { ReviewCardHead } from './ReviewCardHead';
import { reasonProblem } from './learned';
import { ReasonField } from './ReasonField';
import { ShapedBy } from './ShapedBy';
import { ContentWarning } from './ContentWarning';
import { OpenOriginal } from './OpenOriginal';

export const TOO_LONG_BUTTON = 'Response Too Long';
export const TOO_LONG_NOTE = "Response exceeds Twitter's limit";
export const POST_ON_X = 'Post on X';
export const MARK_POSTED = 'Mark as posted';
export const GIVE_UP = 'Give up';
export const REGENERATE = 'Regenerate';
export const APPROVE_ANYWAY = 'Approve anyway';
export const STALE_NOTE = 'The draft changed since it was shown: this is the new text, and nothing was posted. Check it and decide again.';

interface Props {
  post: Post;
  now: number;
  busy: boolean;
  /** The flags the server named when it refused to approve the admin's text, if it did. */
  refusedFlags?: readonly string[];
  /** Whether a decision on this card met a draft changed since it was shown (a 409): the card shows the new one. */
  stale?: boolean;
  /** edited is the admin's text when it differs from the draft, else undefined; override approves a flagged text. */
  onApprove: (post: Post, edited: string | undefined, override: boolean) => void;
  /** reason is the admin's optional why (trimmed by the call; blank is none). */
  onReject: (post: Post, reason: string) => void;
  /** For a reply awaiting hand-posting: the admin posted it on X. */
  onMarkPosted: (post: Post) => void;
  /** For a reply awaiting hand-posting: it will not be posted. */
  onGiveUp: (post: Post) => void;
  /** Asks the writer for a new draft; resolves true when the request was taken. */
  onRegenerate: (post: Post, instruction: string) => Promise<boolean>;
  /** Whether the card is selected for a bulk action. */
  selected: boolean;
  /** Selects or deselects the card for a bulk action. */
  onToggleSelect: (post: Post) => void;
}

/** One draft under review: the original post, its figures, the editable response and the verdict buttons. */
export function ReviewCard({
  post,
  now,
  busy,
  refusedFlags,
  stale = false,
  onApprove,
  onReject,
  onMarkPosted,
  onGiveUp,
  onRegenerate,
  selected,
  onToggleSelect,
}: Props) {
  const original = post.proposed_response;
  const [draft, setDraft] = useState(original);
  // A new draft (regenerated, or changed elsewhere) replaces the text being edited.
  const [shownOriginal, setShownOriginal] = useState(original);
  if (shownOriginal !== original) {
    setShownOriginal(original);
    setDraft(original);
  }
  const [instruction, setInstruction] = useState('');
  const [historyOpen, setHistoryOpen] = useState(false);
  const [reason, setReason] = useState('');
  const problem = instructionProblem(instruction);
  const reasonIssue = reasonProblem(reason);
  const ids = useId();
  // Each platform counts against its own limit, by its rule (GET /api/platforms).
  const platforms = usePlatforms();
  const rule = platforms.find((p) => p.name === post.platform);
  const limit = responseLimit(post, rule?.max_length);
  const length = responseLength(draft, rule?.length_rule);
  const tooLong = isTooLong(length, limit);
  const empty = draft.trim() === '';
  const edited = draft !== original;
  const awaitingManual = post.status === 'awaiting_manual';
  const manual = post.reply_route === 'manual';
  const flags = refusedFlags ?? post.flags;
  const override = needsOverride(flags);
  // Approve, reject and regenerate apply while the post is under review, not once approved for hand-posting.
  const reviewable = post.status === 'pending' || post.status === 'failed';
  const review = post.review ?? null;

  async function regenerate() {
    if (problem) return;
    if (await onRegenerate(post, instruction)) setInstruction('');
  }

  return (
    <article
      className={`review-card${tooLong ? ' is-too-long' : ''}${selected ? ' is-selected' : ''}`}
      aria-labelledby={`${ids}-title`}
      // The review's keys (useReviewShortcuts) act on the card holding the focus.
      aria-keyshortcuts={reviewable ? 'j k a r e g x' : 'j k e'}
      data-testid="review-card"
      data-post-id={post.id}
      tabIndex={0}
    >
      <ReviewCardHead
        post={post}
        now={now}
        flags={flags}
        ids={ids}
        reviewable={reviewable}
        selected={selected}
        onToggleSelect={onToggleSelect}
      />

      {review && (
        <p id={`${ids}-review`} className={`review-judged${isLowScore(review.score) ? ' is-low' : ''}`} data-testid="review-reason">
          {reviewDetail(review)}
        </p>
      )}
      <ShapedBy postId={post.id} learnedFrom={post.learned_from} />
      {stale && (
        <p className="review-warning review-stale" role="status" data-testid="stale-draft">
          {STALE_NOTE}
        </p>
      )}
      {post.queued && (
        <p className="review-route" role="status" data-testid="queued">
          Approved, {post.queued}: it goes out in approval order when the send cap allows.
        </p>
      )}
      {post.status === 'failed' && (
        <p className="review-warning" role="status" data-testid="failure">
          {post.proposed_response ? 'Sending failed' : 'Drafting failed'}
          {post.error ? `: ${post.error.replace(/\.$/, '')}` : ''}. Edit and approve to try again, or reject.
        </p>
      )}
      {flags.length > 0 && !awaitingManual && (
        <p className="review-flags" role="status" data-testid="flags">
          {flagSummary(flags)}{' '}
          {override
            ? `Check it before it goes out: approving it takes \u201c${APPROVE_ANYWAY}\u201d.`
            : 'The persona is repeating itself.'}
        </p>
      )}
      {manual && !awaitingManual && (
        <p className="review-route" data-testid="route-manual">
          X&apos;s API may not reply to this post (it neither mentions nor quotes the persona): approving it gives a
          &ldquo;{POST_ON_X}&rdquo; button to post it by hand.
        </p>
      )}
      {awaitingManual && (
        <p className="review-route" role="status" data-testid="awaiting-manual">
          Approved for hand-posting{post.error ? ` (${post.error.replace(/\.$/, '')})` : ''}: post it on X, then mark it
          posted; the pipeline also finds it on the persona&apos;s timeline.
        </p>
      )}
      <InConversation postId={post.id} enabled={post.original_post_id !== ''} now={now}>
        <ContentWarning text={post.content_warning ?? ''} />
        {post.original_post_text && (
          <blockquote className="review-original" data-testid="original-text">
            {post.original_post_text}
          </blockquote>
        )}
      </InConversation>
      {post.media.length > 0 || post.link ? (
        <PostMedia media={post.media} link={post.link} />
      ) : (
        post.media_url && (
          <p className="review-media">
            <a href={post.media_url} target="_blank" rel="noopener noreferrer">
              View attached media<span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </p>
        )
      )}

      <OpenOriginal url={post.url ?? ''} platform={post.platform} platforms={platforms} />

      <dl className="review-metrics">
        <div>
          <dt>Likes</dt>
          <dd data-testid="likes">{post.likes_count}</dd>
        </div>
        <div>
          <dt>Retweets</dt>
          <dd data-testid="retweets">{post.retweets_count}</dd>
        </div>
        <div>
          <dt>Replies</dt>
          <dd data-testid="replies">{post.replies_count}</dd>
        </div>
        <div>
          <dt>Engagement</dt>
          <dd data-testid="engagement">{post.engagement_score}</dd>
        </div>
        <div>
          <dt>Age</dt>
          <dd>{formatAge(post.age_seconds)}</dd>
        </div>
      </dl>
      <details className="review-ids" data-testid="review-ids">
        <summary>Ids</summary>
        <dl className="review-metrics">
          <div>
            <dt>Post</dt>
            <dd>#{post.id}</dd>
          </div>
          <div className="review-metric-wide">
            <dt>Original post</dt>
            <dd className="mono">{post.original_post_id || '—'}</dd>
          </div>
        </dl>
      </details>

      <div className="field">
        <label htmlFor={`${ids}-response`}>Proposed response</label>
        <textarea
          id={`${ids}-response`}
          className="review-response"
          rows={4}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          aria-describedby={`${ids}-count`}
          aria-invalid={tooLong || undefined}
          data-shortcut="edit"
        />
      </div>
      <CharCounter length={length} limit={limit} id={`${ids}-count`} />
      <p className={`review-cost${post.response_has_link ? ' is-dear' : ''}`} data-testid="send-cost">
        {manual
          ? 'Posted by hand: no API cost'
          : `Sending costs ${formatUSD(post.estimated_cost_usd)}${post.response_has_link ? ' (the link makes it a dearer post)' : ''}`}
      </p>
      {tooLong && (
        <p className="review-warning" data-testid="too-long">
          {TOO_LONG_NOTE}
        </p>
      )}
      {reviewable && (
        <div className="review-regenerate">
          <div className="field review-instruction">
            <label htmlFor={`${ids}-instruction`}>Instruction for a new draft (optional)</label>
            <input
              id={`${ids}-instruction`}
              type="text"
              value={instruction}
              maxLength={MAX_INSTRUCTION + 20}
              placeholder="shorter, less cruel, mention the coffee…"
              onChange={(e) => setInstruction(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void regenerate();
                }
              }}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${ids}-instruction-problem` : undefined}
              data-testid="instruction"
            />
          </div>
          <button
            type="button"
            className="btn btn-ghost"
            disabled={busy || problem !== null}
            onClick={() => void regenerate()}
            data-testid="regenerate"
            data-shortcut="regenerate"
          >
            {busy ? 'Summoning…' : REGENERATE}
          </button>
          {problem && (
            <p id={`${ids}-instruction-problem`} className="review-warning">
              {problem}
            </p>
          )}
        </div>
      )}
      {edited && (
        <p className="review-edited">
          Edited: the edited text will be posted.{' '}
          <button type="button" className="link-button" onClick={() => setDraft(original)}>
            Undo edits
          </button>
        </p>
      )}

      {(post.grounded_in?.length ?? 0) > 0 && <FactsUsed postId={post.id} />}

      <div className="review-history-toggle">
        <button
          type="button"
          className="link-button"
          aria-expanded={historyOpen}
          aria-controls={`${ids}-history`}
          onClick={() => setHistoryOpen((open) => !open)}
          data-testid="history-toggle"
        >
          {historyOpen ? 'Hide history' : 'History'}
        </button>
        {historyOpen && <DraftHistory postId={post.id} now={now} id={`${ids}-history`} />}
      </div>

      {awaitingManual ? (
        <div className="review-actions">
          {post.intent_url && (
            <a className="btn btn-success" href={post.intent_url} target="_blank" rel="noopener noreferrer" data-testid="post-on-x">
              {POST_ON_X}
              <span className="visually-hidden"> (opens X in a new tab)</span>
            </a>
          )}
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => onMarkPosted(post)}>
            {MARK_POSTED}
          </button>
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => onGiveUp(post)}>
            {GIVE_UP}
          </button>
        </div>
      ) : (
        <>
          {reviewable && (
            <ReasonField
              id={`${ids}-reason`}
              label="Reason if you reject (optional)"
              value={reason}
              onChange={setReason}
              className="review-reject-reason"
              placeholder="off-topic, wrong tone, too long…"
              testId="reject-reason"
            />
          )}
          <div className="review-actions">
            <button
              type="button"
              className="btn btn-success"
              disabled={busy || tooLong || empty}
              onClick={() => onApprove(post, edited ? draft : undefined, override)}
              data-shortcut="approve"
            >
              {tooLong ? TOO_LONG_BUTTON : override ? APPROVE_ANYWAY : 'Approve'}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={busy || reasonIssue !== null}
              onClick={() => onReject(post, reason)}
              data-shortcut="reject"
            >
              Reject
            </button>
          </div>
        </>
      )}
    </article>
  );
}
