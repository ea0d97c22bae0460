import { useMemo, useState, type FormEvent } from 'react';
import { fetcher, statusOf } from '../../api/client';
import { formatUSD } from '../../lib/spend';
import { formatTimestamp } from '../../lib/time';
import { Chart, type ChartSeries } from './Chart';
import {
  browserZone,
  dayEngagement,
  daySeconds,
  formatMean,
  formatSeconds,
  formatShare,
  funnelRows,
  gapLabel,
  heatShade,
  lookupSentence,
  RANGES,
  type Range,
} from './model';
import type { Insights, Lookup } from './types';
import { useInsights } from './useInsights';
import './insights.css';

/**
 * A table that may be wider than its column: it scrolls sideways in its own box, which the
 * keyboard can reach (tab to it, then the arrow keys) and which is named for a screen reader.
 */
function ScrollBox({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    // A scrolling box must be focusable to be scrolled without a mouse (axe: scrollable-region-focusable).
    <div className="insights-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/** A chart's figures as a table, behind a toggle; the table scrolls in its own box when wider than its column. */
function TableToggle({ children, testId, label }: { children: React.ReactNode; testId: string; label: string }) {
  return (
    <details className="insights-table-toggle" data-testid={testId}>
      <summary>Show the figures as a table</summary>
      <ScrollBox label={label}>{children}</ScrollBox>
    </details>
  );
}

/** The gaps of the range, said in words where the charts draw nothing: one note each (a note, not a list item). */
function GapNotes({ data }: { data: Insights }) {
  if (data.gaps.length === 0) return null;
  return (
    <div className="insights-gaps" data-testid="insights-gaps">
      {data.gaps.map((g) => (
        <p key={g.from} role="note">
          {gapLabel(g)}
        </p>
      ))}
    </div>
  );
}

function Funnel({ data }: { data: Insights }) {
  const rows = funnelRows(data.funnel);
  const max = Math.max(1, data.funnel.seen);
  return (
    <figure className="insights-figure" data-testid="insights-funnel">
      <figcaption>Funnel: every post the scans returned, at its current fate</figcaption>
      <table className="spend-table insights-funnel">
        <thead>
          <tr>
            <th scope="col">Fate</th>
            <th scope="col">Posts</th>
            <th scope="col" aria-hidden="true" />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label} className={`depth-${r.depth}`}>
              <th scope="row">{r.label}</th>
              <td>{r.count}</td>
              <td aria-hidden="true" className="insights-bar-cell">
                <span className="insights-bar" style={{ width: `${(100 * r.count) / max}%` }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function Latencies({ data }: { data: Insights }) {
  const rows: [string, keyof Insights['latency']][] = [
    ['Mention → draft', 'mention_to_draft'],
    ['Draft → decision', 'draft_to_decision'],
    ['Decision → posted', 'decision_to_posted'],
    ['Mention → posted', 'mention_to_posted'],
  ];
  return (
    <figure className="insights-figure" data-testid="insights-latency">
      <figcaption>Latency</figcaption>
      <ScrollBox label="Latency, table">
        <table className="spend-table">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Median</th>
              <th scope="col">95th percentile</th>
              <th scope="col">Posts</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, key]) => (
              <tr key={key}>
                <th scope="row">{label}</th>
                <td>{formatSeconds(data.latency[key].p50)}</td>
                <td>{formatSeconds(data.latency[key].p95)}</td>
                <td>{data.latency[key].n}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </figure>
  );
}

function Daily({ data }: { data: Insights }) {
  const x = useMemo(() => data.daily.map((d) => daySeconds(d.day)), [data.daily]);
  const posts = useMemo<ChartSeries[]>(
    () => [
      { label: 'Mentions seen', color: '--color-text-muted', values: data.daily.map((d) => d.mentions) },
      { label: 'Replies posted', color: '--color-primary', values: data.daily.map((d) => d.posted) },
    ],
    [data.daily],
  );
  const spend = useMemo<ChartSeries[]>(
    () => [
      { label: 'X (USD)', color: '--color-primary', values: data.daily.map((d) => d.x_usd) },
      { label: 'Model (USD)', color: '--color-ember', values: data.daily.map((d) => d.model_usd) },
    ],
    [data.daily],
  );
  const engagement = useMemo<ChartSeries[]>(
    () => [{ label: 'Engagement at 24 h', color: '--color-accent', values: data.daily.map((d) => dayEngagement(d, data.gaps)) }],
    [data.daily, data.gaps],
  );
  return (
    <>
      <figure className="insights-figure" data-testid="insights-daily">
        <figcaption>Daily posts</figcaption>
        <Chart x={x} series={posts} label="Mentions seen and replies posted per day" testId="chart-daily-posts" />
        <TableToggle testId="table-daily-posts" label="Daily posts, table">
          <table className="spend-table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Mentions seen</th>
                <th scope="col">Replies posted</th>
              </tr>
            </thead>
            <tbody>
              {data.daily.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.mentions}</td>
                  <td>{d.posted}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableToggle>
      </figure>
      <figure className="insights-figure" data-testid="insights-spend">
        <figcaption>Daily spend</figcaption>
        <Chart x={x} series={spend} label="X and model spend per day" testId="chart-daily-spend" />
        <TableToggle testId="table-daily-spend" label="Daily spend, table">
          <table className="spend-table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">X</th>
                <th scope="col">Model</th>
                <th scope="col">Per posted reply</th>
              </tr>
            </thead>
            <tbody>
              {data.daily.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{formatUSD(d.x_usd)}</td>
                  <td>{formatUSD(d.model_usd)}</td>
                  <td>{d.cost_per_post === null ? '—' : formatUSD(d.cost_per_post)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableToggle>
      </figure>
      <figure className="insights-figure" data-testid="insights-engagement">
        <figcaption>Engagement of the replies, 24 hours after posting (likes + 2 × reposts + 2 × replies)</figcaption>
        <GapNotes data={data} />
        <Chart x={x} series={engagement} label="Engagement of the replies posted each day" testId="chart-daily-engagement" />
        <TableToggle testId="table-daily-engagement" label="Engagement of the replies, table">
          <table className="spend-table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Likes</th>
                <th scope="col">Reposts</th>
                <th scope="col">Replies</th>
                <th scope="col">Engagement</th>
              </tr>
            </thead>
            <tbody>
              {data.daily.map((d) => {
                const e = dayEngagement(d, data.gaps);
                return (
                  <tr key={d.day}>
                    <th scope="row">{d.day}</th>
                    <td>{d.likes}</td>
                    <td>{d.reposts}</td>
                    <td>{d.replies}</td>
                    <td>{e === null ? 'no data' : e}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableToggle>
      </figure>
    </>
  );
}

function Versions({ data }: { data: Insights }) {
  return (
    <figure className="insights-figure insights-wide" data-testid="insights-versions">
      <figcaption>Engagement per persona version</figcaption>
      {data.persona_versions.length === 0 ? (
        <p className="muted">No drafts in these days.</p>
      ) : (
        <ScrollBox label="Engagement per persona version, table">
          <table className="spend-table">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Drafts</th>
                <th scope="col">Approved</th>
                <th scope="col">Edited</th>
                <th scope="col">Mean review</th>
                <th scope="col">Mean engagement</th>
              </tr>
            </thead>
            <tbody>
              {data.persona_versions.map((v) => (
                <tr key={v.version}>
                  <th scope="row">v{v.version}</th>
                  <td>{v.drafts}</td>
                  <td>{formatShare(v.approval_rate)}</td>
                  <td>{formatShare(v.edit_rate)}</td>
                  <td>{formatMean(v.mean_review_score)}</td>
                  <td>{v.measured === 0 ? 'not measured yet' : formatMean(v.mean_engagement)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </figure>
  );
}

function Judge({ data }: { data: Insights }) {
  return (
    <figure className="insights-figure" data-testid="insights-judge">
      <figcaption>The judge's calibration: does its score predict the administrator, and the audience?</figcaption>
      <ScrollBox label="The judge's calibration, table">
        <table className="spend-table">
          <thead>
            <tr>
              <th scope="col">Score</th>
              <th scope="col">Drafts</th>
              <th scope="col">Approved</th>
              <th scope="col">Mean engagement</th>
            </tr>
          </thead>
          <tbody>
            {data.judge.map((j) => (
              <tr key={j.score}>
                <th scope="row">{j.score} / 5</th>
                <td>{j.drafts}</td>
                <td>
                  {formatShare(j.approved_share)}
                  <span className="insights-bar" aria-hidden="true" style={{ width: `${(j.approved_share ?? 0) * 6}rem` }} />
                </td>
                <td>{j.measured === 0 ? '—' : formatMean(j.mean_engagement)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </figure>
  );
}

function Heatmap({ data }: { data: Insights }) {
  const max = Math.max(0, ...data.heatmap.seen.flat());
  return (
    <figure className="insights-figure insights-wide" data-testid="insights-heatmap">
      <figcaption>When posts come: posts seen per weekday and hour ({data.heatmap.tz}); a cell's title gives the mean engagement of the replies posted then</figcaption>
      {max === 0 ? (
        <p className="muted">No posts seen in these days.</p>
      ) : (
        <ScrollBox label="Posts seen per weekday and hour, table">
          <table className="insights-heatmap">
            <thead>
              <tr>
                <th scope="col">Day</th>
                {data.heatmap.hours.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.heatmap.weekdays.map((day, i) => (
                <tr key={day}>
                  <th scope="row">{day}</th>
                  {data.heatmap.seen[i].map((n, h) => {
                    const e = data.heatmap.engagement[i][h];
                    return (
                      <td
                        key={h}
                        style={{ '--heat': heatShade(n, max) } as React.CSSProperties}
                        title={e === null ? `${n} seen` : `${n} seen; mean engagement ${formatMean(e)}`}
                      >
                        {n}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </figure>
  );
}

function LookupBox() {
  const [q, setQ] = useState('');
  const [answer, setAnswer] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function lookUp(e: FormEvent) {
    e.preventDefault();
    setAnswer(null);
    setError(null);
    try {
      setAnswer(lookupSentence(await fetcher<Lookup>(`/api/mentions/lookup?q=${encodeURIComponent(q.trim())}`)));
    } catch (err) {
      setError(err instanceof Error ? err.message : 'The lookup failed.');
    }
  }
  return (
    <form className="insights-lookup" onSubmit={lookUp} role="search" aria-label="Look up a post">
      <label htmlFor="insights-lookup-q">Did it see my mention? Post URL or id</label>
      <input id="insights-lookup-q" type="search" value={q} onChange={(e) => setQ(e.target.value)} required maxLength={300} />
      <button type="submit" className="btn">
        Look up
      </button>
      <p role="status" data-testid="lookup-answer" className={error ? 'field-error' : undefined}>
        {error ?? answer ?? ''}
      </p>
    </form>
  );
}

/** The admin's Insights: the funnel, latencies, daily posts and spend, engagement per persona version, the judge's calibration, the heatmap, and a lookup of any post. */
export function InsightsPanel() {
  const [days, setDays] = useState<Range>(7);
  const [tz] = useState(browserZone);
  const { data, error } = useInsights(days, tz);
  // A 401 is handled once for every call (api/client.ts): the admin goes to the login.
  const unauthorized = statusOf(error) === 401;
  return (
    <section className="spend-panel insights-panel" aria-labelledby="insights-title" data-testid="insights-panel">
      <h2 id="insights-title" className="spend-title">
        Insights
      </h2>
      <div className="insights-range" role="group" aria-label="Range">
        {RANGES.map((r) => (
          <button key={r} type="button" className="btn" aria-pressed={days === r} onClick={() => setDays(r)}>
            {r} days
          </button>
        ))}
      </div>
      <LookupBox />
      {error && !unauthorized ? (
        <p className="field-error" role="alert">
          The insights could not be read: {error.message}
        </p>
      ) : !data ? (
        <p className="muted">Reading the figures…</p>
      ) : data.funnel.seen === 0 && data.gaps.length === 0 ? (
        <p className="muted" data-testid="insights-empty">
          No posts seen in the last {data.days} days.
        </p>
      ) : (
        <div className="insights-grid">
          <p className="muted insights-note insights-asof" data-testid="insights-asof">
            Figures as of {formatTimestamp(data.to)}, recomputed every few minutes.
          </p>
          <Funnel data={data} />
          <Latencies data={data} />
          <Daily data={data} />
          <Versions data={data} />
          <Judge data={data} />
          <Heatmap data={data} />
        </div>
      )}
    </section>
  );
}
