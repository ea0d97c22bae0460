import type { AdminStats } from '../../api/types';

/** The four counts of the admin's statistics, in the order shown. */
const STATS: readonly { key: Exclude<keyof AdminStats, 'platforms' | 'media_hosts'>; label: string }[] = [
  { key: 'pending', label: 'Pending Sins' },
  { key: 'posted', label: 'Posted' },
  { key: 'rejected', label: 'Rejected' },
  { key: 'mentions', label: 'Pending Mentions' },
];

/** The admin's statistics panel; every count shows 0 until the statistics arrive. */
export function StatsPanel({ stats }: { stats: AdminStats | undefined }) {
  return (
    <section className="stats-panel" aria-label="Statistics" data-testid="admin-stats">
      {STATS.map(({ key, label }) => (
        <div key={key} className="stats-item">
          <span className="stats-label">{label}</span>
          <span className="stats-value" data-testid={`stat-${key}`}>
            {stats?.[key].count ?? 0}
          </span>
        </div>
      ))}
    </section>
  );
}
