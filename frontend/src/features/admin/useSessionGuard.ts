import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { SESSION_LOST_EVENT } from '../../api/client';
import { ADMIN_LOGIN_PATH } from '../../lib/constants';

/**
 * Goes to the login when the server refuses the session: request() (the one
 * fetcher behind every SWR read and every action) has already forgotten the
 * token and announced it with SESSION_LOST_EVENT.
 */
export function useSessionGuard() {
  const navigate = useNavigate();
  useEffect(() => {
    const toLogin = () => navigate(ADMIN_LOGIN_PATH, { replace: true });
    window.addEventListener(SESSION_LOST_EVENT, toLogin);
    return () => window.removeEventListener(SESSION_LOST_EVENT, toLogin);
  }, [navigate]);
}
