import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { getToken } from '../api/client';
import { ADMIN_LOGIN_PATH } from '../lib/constants';

/** The admin guard: only the presence of a stored token is checked. */
export function RequireToken({ children }: { children: ReactNode }) {
  if (!getToken()) return <Navigate to={ADMIN_LOGIN_PATH} replace />;
  return <>{children}</>;
}
