import { useState } from 'react';
import { Link } from 'react-router';
import { useLatest } from '../api/useLatest';
import { usePublicStats } from '../api/usePublicStats';
import { Card, Stat } from '../components/Card';
import { LoadingScreen } from '../components/LoadingScreen';
import { PageShell } from '../components/PageShell';
import { formatPercent, num, responseRate } from '../lib/numbers';
import { FOLLOW_URL, PERSONA_HANDLE } from '../lib/persona';
import { formatTimestamp } from '../lib/time';
import { platformBreakdown } from '../lib/platforms';
import { usePlatforms } from '../api/usePlatforms';

export const LATEST_FALLBACK = 'The gates of hell are momentarily sealed...';

function randomFraction(): number {
  return Math.random();
}

export default function Home() {
  const { data, isLoading: statsLoading } = usePublicStats();
  const { latest, isLoading: latestLoading } = useLatest();
  const table = usePlatforms();
  // One memorable quote is picked per visit.
  const [quotePick] = useState(randomFraction);

  if (statsLoading || latestLoading) return <LoadingScreen />;

  const stats = data?.stats ?? {};
  const quotes = (data?.memorable_quotes ?? []).filter((q) => typeof q === 'string' && q.trim() !== '');
  const quote = quotes.length > 0 ? quotes[Math.floor(quotePick * quotes.length)] : null;
  const postedCategories = stats.categories?.posted ?? [];
  const pendingCategories = stats.categories?.pending ?? [];
  const engagement = stats.engagement ?? {};
  const mortals = stats.mortal_interactions ?? {};
  // Each platform's share, shown only when more than one has counts.
  const platforms = platformBreakdown(stats.by_platform, table);
  const response = latest?.proposed_response.trim() ? latest.proposed_response : LATEST_FALLBACK;

  return (
    <PageShell skipLink footer>
      <header className="hero">
        <p className="hero-kicker">@{PERSONA_HANDLE}</p>
        <h1 className="hero-title">Infernal AI</h1>
        <p className="hero-tagline">A demon of the feed, drafting replies from the pit. Every word judged before it burns.</p>
        {quote && (
          <figure className="hero-quote">
            <blockquote>{quote}</blockquote>
          </figure>
        )}
        <nav className="hero-links" aria-label="Main">
          <a className="btn btn-primary" href={FOLLOW_URL} target="_blank" rel="noopener noreferrer">
            Follow @{PERSONA_HANDLE}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
          <Link className="btn btn-ghost" to="/about">
            About
          </Link>
          <Link className="btn btn-ghost" to="/backroom">
            Access Hell&apos;s Backroom
          </Link>
        </nav>
      </header>

      <main id="main" className="page">
        <Card title="WORDS OF THE DAMNED" className="featured" testId="latest-card">
          <blockquote className="featured-text" data-testid="latest-response">
            {response}
          </blockquote>
        </Card>

        <div className="card-grid">
          <Card title="Souls Claimed" testId="souls-card">
            <p className="stat-big" data-testid="posted-sins">
              {num(stats.posted_sins)}
            </p>
            <dl className="stat-list">
              <Stat label="Awaiting Judgment" value={num(stats.pending_sins)} testId="pending-sins" />
              <Stat label="Damnation Rate" value={formatPercent(stats.success_rate)} testId="success-rate" />
            </dl>
            {platforms.length > 0 && (
              <p className="muted platform-breakdown" data-testid="posted-by-platform">
                {platforms.map((p) => `${p.label} ${p.posted}`).join(' · ')}
              </p>
            )}
          </Card>

          <Card title="Sin Registry" testId="sin-registry">
            {postedCategories.length === 0 ? (
              <p className="muted">No sins registered yet.</p>
            ) : (
              <ul className="category-list">
                {postedCategories.map((c) => (
                  <li key={c.category} className="category" data-testid={`posted-category-${c.category}`}>
                    <span className="category-name">{c.category}</span>
                    <span className="category-count">{num(c.count)}</span>
                    {num(c.last_24h) > 0 && <span className="category-recent">+{num(c.last_24h)} (24h)</span>}
                  </li>
                ))}
              </ul>
            )}
            {pendingCategories.length > 0 && (
              <>
                <h3 className="card-subtitle">Paperwork Pending in Purgatory</h3>
                <ul className="category-list">
                  {pendingCategories.map((c) => (
                    <li key={c.category} className="category" data-testid={`pending-category-${c.category}`}>
                      <span className="category-name">{c.category}</span>
                      <span className="category-count">{num(c.count)}</span>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </Card>

          <Card title="Infernal Metrics" testId="metrics-card">
            <p className="stat-big" data-testid="engagement-total">
              {num(engagement.total)}
            </p>
            <dl className="stat-list">
              <Stat label="Soul Bonds" value={num(engagement.likes)} testId="engagement-likes" />
              <Stat label="Hellish Echoes" value={num(engagement.retweets)} testId="engagement-retweets" />
              <Stat label="Mortal Pleas" value={num(engagement.replies)} testId="engagement-replies" />
              <Stat
                label="24h Statistics From"
                value={engagement.timestamp ? formatTimestamp(engagement.timestamp) : 'Eternal'}
                testId="engagement-since"
              />
            </dl>
          </Card>

          <Card title="Interactions with Mortals" testId="mortals-card">
            <dl className="stat-list">
              <Stat label="Total Mentions" value={num(mortals.total_mentions)} testId="total-mentions" />
              <Stat label="Total Replies" value={num(mortals.total_replies)} testId="total-replies" />
              <Stat
                label="Response Rate"
                value={`${responseRate(mortals.total_replies, mortals.total_mentions)}%`}
                testId="response-rate"
              />
            </dl>
            {platforms.length > 0 && (
              <p className="muted platform-breakdown" data-testid="mentions-by-platform">
                {platforms.map((p) => `${p.label} ${p.mentions}`).join(' · ')}
              </p>
            )}
            <h3 className="card-subtitle">Last 24h</h3>
            <dl className="stat-list">
              <Stat label="Mentions" value={num(mortals.mentions_24h)} testId="mentions-24h" />
              <Stat label="Replies" value={num(mortals.replies_24h)} testId="replies-24h" />
              <Stat
                label="Response Rate"
                value={`${responseRate(mortals.replies_24h, mortals.mentions_24h)}%`}
                testId="response-rate-24h"
              />
            </dl>
          </Card>

          <Card title="Infernal Processing">
            <dl className="stat-list">
              <Stat label="Response Time" value="666ms" />
              <Stat label="Temperature" value="∞" />
              <Stat label="Uptime" value="24/7" />
            </dl>
          </Card>

          <Card title="Infernal Disclaimer" className="disclaimer">
            <p>
              This persona is an AI. Its words are drafted by a machine and judged by a human before they reach the
              mortal realm. Nothing here is advice, prophecy or a binding pact; any resemblance to actual demons is
              purely coincidental.
            </p>
          </Card>
        </div>
      </main>
    </PageShell>
  );
}
