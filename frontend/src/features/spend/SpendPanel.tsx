import type { Spend } from '../../api/types';
import { FigureTable, type FigureColumn } from '../../components/FigureTable';
import { Panel } from '../../components/Panel';
import { budgetLevel, formatUSD, pauseText, timelinePauseText, visionText, type BudgetLevel } from '../../lib/spend';
import { formatTimestamp } from '../../lib/time';
import { groupByPlatform, platformLabel, type PlatformInfo } from '../../lib/platforms';
import { usePlatforms } from '../../api/usePlatforms';

interface Props {
  spend: Spend | undefined;
  /** Lifts every pause of scanning and sending. */
  onResume: () => void;
  resuming: boolean;
}

interface Ceiling {
  label: string;
  spent: number;
  ceiling: number | null;
}

const LEVEL_TEXT: Record<Exclude<BudgetLevel, 'none' | 'ok'>, string> = {
  warn: 'is at 80 % or more',
  over: 'is spent: scans are paused, and sends go out only while they fit',
};

/** The banners above the dashboard: the pauses (of a platform, of every platform), each timeline paused, and each budget at 80 % or spent. */
export function SpendBanners({ spend, onResume, resuming }: Props) {
  if (!spend) return null;
  const ceilings: Ceiling[] = [
    { label: 'The daily X budget', spent: spend.today.x_usd, ceiling: spend.budget.daily_usd },
    { label: 'The monthly X budget', spent: spend.month.x_usd, ceiling: spend.budget.monthly_usd },
    { label: 'The daily model budget', spent: spend.today.model_usd, ceiling: spend.budget.model_daily_usd },
    { label: 'The monthly model budget', spent: spend.month.model_usd, ceiling: spend.budget.model_monthly_usd },
  ];
  return (
    <div className="banners">
      {spend.pauses.length > 0 && (
        <div className="banner banner-error banner-pause" role="alert" data-testid="banner-paused">
          <span>{spend.pauses.map((p) => pauseText(p)).join(' ')}</span>{' '}
          <button type="button" className="btn btn-primary" onClick={onResume} disabled={resuming}>
            Resume
          </button>
        </div>
      )}
      {spend.timeline_pauses.map((p) => (
        <p key={`${p.platform}:${p.timeline}`} className="banner banner-warning" role="status" data-testid="banner-timeline-paused">
          {timelinePauseText(p)}
        </p>
      ))}
      {ceilings.map((c) => {
        const level = budgetLevel(c.spent, c.ceiling);
        if (level === 'none' || level === 'ok') return null;
        return (
          <p key={c.label} className={`banner ${level === 'over' ? 'banner-error' : 'banner-warning'}`} role="status" data-testid={`banner-budget-${level}`}>
            {c.label} {LEVEL_TEXT[level]}: {formatUSD(c.spent)} of {formatUSD(c.ceiling ?? 0)}.
          </p>
        );
      })}
    </div>
  );
}

const BY_ENDPOINT: readonly FigureColumn<Spend['by_endpoint'][number]>[] = [
  { header: 'Endpoint', cell: (e) => e.endpoint, className: 'mono' },
  { header: 'Calls', cell: (e) => e.calls },
  { header: 'Billed', cell: (e) => e.resources },
  { header: 'USD', cell: (e) => formatUSD(e.usd) },
];

const BY_MODEL: readonly FigureColumn<Spend['by_model'][number]>[] = [
  { header: 'Model', cell: (m) => m.model, className: 'mono' },
  { header: 'Tokens in / out', cell: (m) => `${m.prompt_tokens} / ${m.completion_tokens}` },
  { header: 'USD', cell: (m) => formatUSD(m.usd) },
];

/** The columns of the spend by platform, labelled from the table of platforms. */
const byPlatformColumns = (table: readonly PlatformInfo[]): readonly FigureColumn<Spend['by_platform'][number]>[] => [
  { header: 'Platform', cell: (p) => platformLabel(p.platform, table) },
  { header: 'Today', cell: (p) => formatUSD(p.today_usd) },
  { header: 'Month', cell: (p) => formatUSD(p.month_usd) },
  { header: 'Windows open', cell: (p) => `${p.windows - p.windows_closed} / ${p.windows}` },
];

const WINDOWS: readonly FigureColumn<Spend['windows'][number]>[] = [
  { header: 'Endpoint', cell: (w) => w.endpoint, className: 'mono' },
  { header: 'Left', cell: (w) => (w.limit >= 0 ? `${w.remaining} / ${w.limit}` : w.remaining) },
  { header: 'Resets', cell: (w) => formatTimestamp(w.reset_at) },
  { header: 'State', cell: (w) => (w.open ? 'Open' : 'Closed'), className: (w) => (w.open ? 'window-open' : 'window-closed') },
];

const BACKLOG: readonly FigureColumn<Spend['backlog'][number]>[] = [
  { header: 'Timeline', cell: (b) => b.timeline, className: 'mono' },
  { header: 'Open gaps', cell: (b) => b.open_gaps },
  { header: 'Reads put off', cell: (b) => b.skipped_reads },
  { header: 'Gaps given up', cell: (b) => b.dropped_gaps },
];

/**
 * The "Spend" panel: today, month to date, the projection, by endpoint and
 * model, by platform (when there are several), and the rate-limit windows,
 * grouped by platform.
 */
export function SpendPanel({ spend }: { spend: Spend | undefined }) {
  const byPlatform = spend?.by_platform ?? [];
  const platforms = usePlatforms();
  const windowGroups = groupByPlatform(
    spend?.windows ?? [],
    byPlatform.map((p) => p.platform),
  );
  return (
    <Panel titleId="spend-title" title="Spend" testId="spend-panel">
      {!spend ? (
        <p className="muted">Counting the cost…</p>
      ) : (
        <>
          <dl className="spend-figures">
            <div className="stats-item">
              <dt className="stats-label">Today (X / model)</dt>
              <dd className="stats-value" data-testid="spend-today">
                {formatUSD(spend.today.x_usd)} / {formatUSD(spend.today.model_usd)}
              </dd>
            </div>
            <div className="stats-item">
              <dt className="stats-label">Month to date (X / model)</dt>
              <dd className="stats-value" data-testid="spend-month">
                {formatUSD(spend.month.x_usd)} / {formatUSD(spend.month.model_usd)}
              </dd>
            </div>
            <div className="stats-item">
              <dt className="stats-label">Projected for the month</dt>
              <dd className="stats-value" data-testid="spend-projection">
                {formatUSD(spend.projection_usd)}
              </dd>
            </div>
            {spend.sends && (
              <div className="stats-item">
                <dt className="stats-label">Sent (3 h / 24 h, of the caps)</dt>
                <dd className="stats-value" data-testid="spend-sends">
                  {spend.sends.last_3h} of {spend.sends.cap_3h} / {spend.sends.last_24h} of {spend.sends.cap_24h}
                  {spend.sends.queued > 0 ? `, ${spend.sends.queued} queued: cap` : ''}
                </dd>
              </div>
            )}
          </dl>
          <div className="spend-tables">
            <FigureTable
              testId="spend-by-endpoint"
              caption="By endpoint (month)"
              columns={BY_ENDPOINT}
              rows={spend.by_endpoint}
              rowKey={(e) => e.endpoint}
              empty="No billed calls"
            />
            <FigureTable
              testId="spend-by-model"
              caption="By model (month)"
              columns={BY_MODEL}
              rows={spend.by_model}
              rowKey={(m) => m.model}
              empty="No model usage"
            />
            <p className="spend-vision" data-testid="spend-vision">
              {visionText(spend.model_vision)}
            </p>
            {byPlatform.length > 1 && (
              <FigureTable
                testId="spend-by-platform"
                caption="By platform"
                columns={byPlatformColumns(platforms)}
                rows={byPlatform}
                rowKey={(p) => p.platform}
                rowProps={(p) => ({ 'data-testid': `spend-platform-${p.platform}` })}
              />
            )}
            <FigureTable
              testId="spend-windows"
              caption="Rate-limit windows"
              columns={WINDOWS}
              groups={windowGroups.map((g) => ({
                key: g.platform,
                // A platform's heading only when there are several.
                label: windowGroups.length > 1 ? platformLabel(g.platform, platforms) : null,
                rows: g.items,
                testId: `spend-windows-${g.platform || 'model'}`,
              }))}
              rowKey={(w) => w.endpoint}
              empty="No window announced"
            />
            <FigureTable
              testId="spend-backlog"
              caption="Scan backlog"
              columns={BACKLOG}
              rows={spend.backlog}
              rowKey={(b) => `${b.platform}:${b.timeline}`}
              rowProps={(b) => ({ title: b.last_reason || undefined })}
              empty="Nothing left for later"
            />
          </div>
        </>
      )}
    </Panel>
  );
}
