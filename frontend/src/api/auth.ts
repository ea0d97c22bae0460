// The admin's session: log in and out. Shared by the login page and the admin area.
import { send } from './client';
import type { LoginAnswer } from './types';

/** The session token for the admin's credentials; throws on any failure. */
export async function login(username: string, password: string): Promise<string> {
  const { token } = await send<LoginAnswer>('/api/auth/login', { username, password });
  if (!token) throw new Error('no token in the answer');
  return token;
}

/** Log out: end this browser's session. */
export function logout(): Promise<null> {
  return send<null>('/api/auth/logout');
}

/** Log out everywhere: revoke every session of the admin, in every browser. */
export function logoutEverywhere(): Promise<null> {
  return send<null>('/api/auth/logout-all');
}
