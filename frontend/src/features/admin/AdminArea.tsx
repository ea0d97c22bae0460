import { Suspense, useState } from 'react';
import { Navigate, NavLink, Route, Routes, useNavigate } from 'react-router';
import { useSWRConfig } from 'swr';
import { logout } from '../../api/auth';
import { clearToken } from '../../api/client';
import { LogoutEverywhere } from '../../components/LogoutEverywhere';
import { PageShell } from '../../components/PageShell';
import { ADMIN_LOGIN_PATH, OPS_PATH } from '../../lib/constants';
import { ADMIN_SECTIONS, sectionPath } from './sections';
import { useSessionGuard } from './useSessionGuard';
// After styles.css: the admin's rules load with its lazy chunks, never on the public pages.
import '../../admin.css';

/**
 * The guarded admin area: the top bar (title, Ops, Refresh, the logouts),
 * the sections' navigation (a top bar on a desktop, a bottom bar on a phone)
 * and the section shown.
 */
export default function AdminArea() {
  const navigate = useNavigate();
  const { mutate } = useSWRConfig();
  const [menuOpen, setMenuOpen] = useState(false);
  useSessionGuard();

  async function onLogout() {
    try {
      await logout();
    } catch {
      // The token may already be expired or revoked; it is dropped all the same.
    }
    clearToken();
    navigate(ADMIN_LOGIN_PATH, { replace: true });
  }

  return (
    <PageShell className="admin-shell">
      <header className="admin-top">
        <h1 className="admin-title">Infernal Bot Admin</h1>
        <nav className="admin-nav" aria-label="Admin sections" data-testid="admin-nav">
          {ADMIN_SECTIONS.map((s) => (
            <NavLink key={s.path} to={sectionPath(s)} className="admin-nav-link">
              {s.label}
            </NavLink>
          ))}
        </nav>
        <button
          type="button"
          className="btn btn-ghost admin-menu-button"
          aria-expanded={menuOpen}
          aria-controls="admin-actions"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <div id="admin-actions" className={`admin-top-actions${menuOpen ? ' is-open' : ''}`}>
          <a className="btn btn-ghost" href={OPS_PATH} target="_blank" rel="noopener noreferrer">
            Ops<span className="visually-hidden"> (queue dashboard, opens in a new tab)</span>
          </a>
          {/* Every read shown is fetched again: the section's lists, the statistics, the spend. */}
          <button type="button" className="btn btn-ghost" onClick={() => void mutate(() => true)}>
            Refresh
          </button>
          <LogoutEverywhere />
          <button type="button" className="btn btn-primary" onClick={() => void onLogout()}>
            Logout
          </button>
        </div>
      </header>

      <main className="page admin-page" id="main">
        <Suspense fallback={<p className="muted">Summoning the damned…</p>}>
          <Routes>
            {ADMIN_SECTIONS.map(({ path, Page }) => (
              <Route key={path} path={path} element={<Page />} />
            ))}
            <Route path="*" element={<Navigate to="/" replace />} />
          </Routes>
        </Suspense>
      </main>
    </PageShell>
  );
}
