import { useMemo, useState, type FormEvent } from 'react';
import { usePlatforms } from '../../api/usePlatforms';
import { fetcher, statusOf } from '../../api/client';
import { FigureTable } from '../../components/FigureTable';
import { Panel } from '../../components/Panel';
import { formatUSD } from '../../lib/spend';
import { formatTimestamp } from '../../lib/time';
import { Chart, type ChartSeries } from './Chart';
import { Learning } from './Learning';
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
  const platforms = usePlatforms();
  if (data.gaps.length === 0) return null;
  return (
    <div className="insights-gaps" data-testid="insights-gaps">
      {data.gaps.map((g) => (
        <p key={g.from} role="note">
          {gapLabel(g, platforms)}
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
      <FigureTable
        className="insights-funnel"
        columns={[
          { header: 'Fate', cell: (r) => r.label, rowHeader: true },
          { header: 'Posts', cell: (r) => r.count },
          {
            header: null,
            decorative: true,
            className: 'insights-bar-cell',
            cell: (r) => <span className="insights-bar" style={{ width: `${(100 * r.count) / max}%` }} />,
          },
        ]}
        rows={rows}
        rowKey={(r) => r.label}
        rowProps={(r) => ({ className: `depth-${r.depth}` })}
      />
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
        <FigureTable
          columns={[
            { header: 'Step', cell: ([label]) => label, rowHeader: true },
            { header: 'Median', cell: ([, key]) => formatSeconds(data.latency[key].p50) },
            { header: '95th percentile', cell: ([, key]) => formatSeconds(data.latency[key].p95) },
            { header: 'Posts', cell: ([, key]) => data.latency[key].n },
          ]}
          rows={rows}
          rowKey={([, key]) => key}
        />
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
          <FigureTable
            columns={[
              { header: 'Day', cell: (d) => d.day, rowHeader: true },
              { header: 'Mentions seen', cell: (d) => d.mentions },
              { header: 'Replies posted', cell: (d) => d.posted },
            ]}
            rows={data.daily}
            rowKey={(d) => d.day}
          />
        </TableToggle>
      </figure>
      <figure className="insights-figure" data-testid="insights-spend">
        <figcaption>Daily spend</figcaption>
        <Chart x={x} series={spend} label="X and model spend per day" testId="chart-daily-spend" />
        <TableToggle testId="table-daily-spend" label="Daily spend, table">
          <FigureTable
            columns={[
              { header: 'Day', cell: (d) => d.day, rowHeader: true },
              { header: 'X', cell: (d) => formatUSD(d.x_usd) },
              { header: 'Model', cell: (d) => formatUSD(d.model_usd) },
              { header: 'Per posted reply', cell: (d) => (d.cost_per_post === null ? '—' : formatUSD(d.cost_per_post)) },
            ]}
            rows={data.daily}
            rowKey={(d) => d.day}
          />
        </TableToggle>
      </figure>
      <figure className="insights-figure" data-testid="insights-engagement">
        <figcaption>Engagement of the replies, 24 hours after posting (likes + 2 × reposts + 2 × replies)</figcaption>
        <GapNotes data={data} />
        <Chart x={x} series={engagement} label="Engagement of the replies posted each day" testId="chart-daily-engagement" />
        <TableToggle testId="table-daily-engagement" label="Engagement of the replies, table">
          <FigureTable
            columns={[
              { header: 'Day', cell: (d) => d.day, rowHeader: true },
              { header: 'Likes', cell: (d) => d.likes },
              { header: 'Reposts', cell: (d) => d.reposts },
              { header: 'Replies', cell: (d) => d.replies },
              {
                header: 'Engagement',
                cell: (d) => {
                  const e = dayEngagement(d, data.gaps);
                  return e === null ? 'no data' : e;
                },
              },
            ]}
            rows={data.daily}
            rowKey={(d) => d.day}
          />
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
          <FigureTable
            columns={[
              { header: 'Version', cell: (v) => `v${v.version}`, rowHeader: true },
              { header: 'Drafts', cell: (v) => v.drafts },
              { header: 'Approved', cell: (v) => formatShare(v.approval_rate) },
              { header: 'Edited', cell: (v) => formatShare(v.edit_rate) },
              { header: 'Mean review', cell: (v) => formatMean(v.mean_review_score) },
              { header: 'Mean engagement', cell: (v) => (v.measured === 0 ? 'not measured yet' : formatMean(v.mean_engagement)) },
            ]}
            rows={data.persona_versions}
            rowKey={(v) => v.version}
          />
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
        <FigureTable
          columns={[
            { header: 'Score', cell: (j) => `${j.score} / 5`, rowHeader: true },
            { header: 'Drafts', cell: (j) => j.drafts },
            {
              header: 'Approved',
              cell: (j) => (
                <>
                  {formatShare(j.approved_share)}
                  <span className="insights-bar" aria-hidden="true" style={{ width: `${(j.approved_share ?? 0) * 6}rem` }} />
                </>
              ),
            },
            { header: 'Mean engagement', cell: (j) => (j.measured === 0 ? '—' : formatMean(j.mean_engagement)) },
          ]}
          rows={data.judge}
          rowKey={(j) => j.score}
        />
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
    <Panel titleId="insights-title" title="Insights" className="insights-panel" testId="insights-panel">
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
          <Learning data={data} />
          <Judge data={data} />
          <Heatmap data={data} />
        </div>
      )}
    </Panel>
  );
}
