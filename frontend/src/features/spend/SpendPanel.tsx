import type { Spend } from '../../api/types';
import { budgetLevel, formatUSD, pauseText, timelinePauseText, visionText, type BudgetLevel } from '../../lib/spend';
import { formatTimestamp } from '../../lib/time';
import { groupByPlatform, platformLabel } from '../../lib/platforms';

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

/**
 * The "Spend" panel: today, month to date, the projection, by endpoint and
 * model, by platform (when there are several), and the rate-limit windows,
 * grouped by platform.
 */
export function SpendPanel({ spend }: { spend: Spend | undefined }) {
  const byPlatform = spend?.by_platform ?? [];
  const windowGroups = groupByPlatform(
    spend?.windows ?? [],
    byPlatform.map((p) => p.platform),
  );
  return (
    <section className="spend-panel" aria-labelledby="spend-title" data-testid="spend-panel">
      <h2 id="spend-title" className="spend-title">
        Spend
      </h2>
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
            <table className="spend-table" data-testid="spend-by-endpoint">
              <caption>By endpoint (month)</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Billed</th>
                  <th scope="col">USD</th>
                </tr>
              </thead>
              <tbody>
                {spend.by_endpoint.length === 0 ? (
                  <tr>
                    <td colSpan={4}>No billed calls</td>
                  </tr>
                ) : (
                  spend.by_endpoint.map((e) => (
                    <tr key={e.endpoint}>
                      <td className="mono">{e.endpoint}</td>
                      <td>{e.calls}</td>
                      <td>{e.resources}</td>
                      <td>{formatUSD(e.usd)}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
            <table className="spend-table" data-testid="spend-by-model">
              <caption>By model (month)</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Tokens in / out</th>
                  <th scope="col">USD</th>
                </tr>
              </thead>
              <tbody>
                {spend.by_model.length === 0 ? (
                  <tr>
                    <td colSpan={3}>No model usage</td>
                  </tr>
                ) : (
                  spend.by_model.map((m) => (
                    <tr key={m.model}>
                      <td className="mono">{m.model}</td>
                      <td>
                        {m.prompt_tokens} / {m.completion_tokens}
                      </td>
                      <td>{formatUSD(m.usd)}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
            <p className="spend-vision" data-testid="spend-vision">
              {visionText(spend.model_vision)}
            </p>
            {byPlatform.length > 1 && (
              <table className="spend-table" data-testid="spend-by-platform">
                <caption>By platform</caption>
                <thead>
                  <tr>
                    <th scope="col">Platform</th>
                    <th scope="col">Today</th>
                    <th scope="col">Month</th>
                    <th scope="col">Windows open</th>
                  </tr>
                </thead>
                <tbody>
                  {byPlatform.map((p) => (
                    <tr key={p.platform} data-testid={`spend-platform-${p.platform}`}>
                      <td>{platformLabel(p.platform)}</td>
                      <td>{formatUSD(p.today_usd)}</td>
                      <td>{formatUSD(p.month_usd)}</td>
                      <td>
                        {p.windows - p.windows_closed} / {p.windows}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <table className="spend-table" data-testid="spend-windows">
              <caption>Rate-limit windows</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Left</th>
                  <th scope="col">Resets</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              {windowGroups.length === 0 ? (
                <tbody>
                  <tr>
                    <td colSpan={4}>No window announced</td>
                  </tr>
                </tbody>
              ) : (
                windowGroups.map((g) => (
                  <tbody key={g.platform} data-testid={`spend-windows-${g.platform || 'model'}`}>
                    {windowGroups.length > 1 && (
                      <tr>
                        <th scope="rowgroup" colSpan={4} className="spend-group">
                          {platformLabel(g.platform)}
                        </th>
                      </tr>
                    )}
                    {g.items.map((w) => (
                      <tr key={w.endpoint}>
                        <td className="mono">{w.endpoint}</td>
                        <td>{w.limit >= 0 ? `${w.remaining} / ${w.limit}` : w.remaining}</td>
                        <td>{formatTimestamp(w.reset_at)}</td>
                        <td className={w.open ? 'window-open' : 'window-closed'}>{w.open ? 'Open' : 'Closed'}</td>
                      </tr>
                    ))}
                  </tbody>
                ))
              )}
            </table>
            <table className="spend-table" data-testid="spend-backlog">
              <caption>Scan backlog</caption>
              <thead>
                <tr>
                  <th scope="col">Timeline</th>
                  <th scope="col">Open gaps</th>
                  <th scope="col">Reads put off</th>
                  <th scope="col">Gaps given up</th>
                </tr>
              </thead>
              <tbody>
                {spend.backlog.length === 0 ? (
                  <tr>
                    <td colSpan={4}>Nothing left for later</td>
                  </tr>
                ) : (
                  spend.backlog.map((b) => (
                    <tr key={`${b.platform}:${b.timeline}`} title={b.last_reason || undefined}>
                      <td className="mono">{b.timeline}</td>
                      <td>{b.open_gaps}</td>
                      <td>{b.skipped_reads}</td>
                      <td>{b.dropped_gaps}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
