import { useMemo } from 'react';
import { FigureTable } from '../../components/FigureTable';
import { Chart, type ChartSeries } from './Chart';
import { anyLearning, formatDistance, percent, weekShare } from './learning';
import { daySeconds } from './model';
import type { Insights } from './types';
import './learning.css';

/**
 * "Is the persona learning?": each week's decisions on drafts as shares
 * (a chart: the edited share should fall as the persona learns), and the
 * weekly figures as a table.
 */
export function Learning({ data }: { data: Insights }) {
  const weekly = useMemo(() => data.learning?.weekly ?? [], [data.learning]);
  const x = useMemo(() => weekly.map((w) => daySeconds(w.week)), [weekly]);
  const shares = useMemo<ChartSeries[]>(
    () => [
      { label: 'Approved as written (%)', color: '--color-primary', values: weekly.map((w) => percent(weekShare(w, 'approved_unedited'))) },
      { label: 'Edited (%)', color: '--color-ember', values: weekly.map((w) => percent(weekShare(w, 'edited'))) },
      { label: 'Rejected (%)', color: '--color-text-muted', values: weekly.map((w) => percent(weekShare(w, 'rejected'))) },
    ],
    [weekly],
  );
  return (
    <figure className="insights-figure insights-wide" data-testid="insights-learning">
      <figcaption>Is the persona learning? Each week&apos;s decisions on drafts: fewer edited, the better it writes</figcaption>
      {!anyLearning(weekly) ? (
        <p className="muted">No drafts decided in these days.</p>
      ) : (
        <>
          <Chart
            x={x}
            series={shares}
            label="Share of each week's decisions approved as written, edited and rejected"
            testId="chart-learning"
          />
          {/* On a phone the table may be wider than the screen: it scrolls in its own box, the page does not. */}
          <div className="insights-scroll" tabIndex={0} role="region" aria-label="Weekly figures of the learning">
            <FigureTable
              testId="table-learning"
              className="insights-learning-table"
              columns={[
                { header: 'Week of', cell: (w) => <time dateTime={w.week}>{w.week}</time>, rowHeader: true },
                { header: 'Drafts', cell: (w) => w.drafts },
                { header: 'As written', cell: (w) => w.approved_unedited },
                { header: 'Edited', cell: (w) => w.edited },
                { header: 'Rejected', cell: (w) => w.rejected },
                { header: 'Mean edit distance', cell: (w) => formatDistance(w.mean_edit_distance) },
              ]}
              rows={weekly}
              rowKey={(w) => w.week}
            />
          </div>
          <p className="muted insights-note">Mean edit distance: the characters changed between the draft and the text approved, over the edited ones.</p>
        </>
      )}
    </figure>
  );
}
