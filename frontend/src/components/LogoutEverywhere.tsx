import { useState } from 'react';
import { useNavigate } from 'react-router';
import { logoutEverywhere } from '../api/auth';
import { clearToken, statusOf } from '../api/client';
import { ADMIN_LOGIN_PATH } from '../lib/constants';

/**
 * "Log out everywhere": revokes every session of the admin (every browser and
 * device), then drops the token here and goes back to the login page. Meant
 * for the admin top bar, beside Logout.
 */
export function LogoutEverywhere() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onClick() {
    setBusy(true);
    setError(null);
    try {
      await logoutEverywhere();
    } catch (err) {
      // A 401 means this session is already gone; anything else left the
      // other sessions alive, so the admin stays here and may try again.
      if (statusOf(err) !== 401) {
        setBusy(false);
        setError('Could not log out everywhere; try again.');
        return;
      }
    }
    clearToken();
    navigate(ADMIN_LOGIN_PATH, { replace: true });
  }

  return (
    <>
      <button type="button" className="btn btn-ghost" onClick={() => void onClick()} disabled={busy}>
        Log out everywhere
      </button>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="logout-everywhere-error">
          {error}
        </p>
      )}
    </>
  );
}
