import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { login } from '../api/auth';
import { setToken } from '../api/client';
import { PageShell } from '../components/PageShell';
import { ADMIN_DASHBOARD_PATH } from '../lib/constants';
// After styles.css: the admin's rules load with its lazy chunks, never on the public pages.
import '../admin.css';

export const LOGIN_FAILED = 'Invalid credentials';

export default function AdminLogin() {
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    setFailed(false);
    try {
      const token = await login(username, password);
      setToken(token);
      navigate(ADMIN_DASHBOARD_PATH, { replace: true });
    } catch {
      // Whatever went wrong (bad password, throttled, server down), the admin sees one message.
      setFailed(true);
      setBusy(false);
    }
  }

  return (
    <PageShell className="login-shell">
      <main className="login-card card">
        <h1 className="login-title">Infernal Bot Admin</h1>
        <p className="muted">The keeper&apos;s gate. Mortals, turn back.</p>
        <form onSubmit={onSubmit} className="login-form">
          <div className="field">
            <label htmlFor="login-username">Username</label>
            <input
              id="login-username"
              name="username"
              autoComplete="username"
              required
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <input
              id="login-password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </div>
          {failed && (
            <p className="banner banner-error" role="alert">
              {LOGIN_FAILED}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            Login
          </button>
        </form>
      </main>
    </PageShell>
  );
}
