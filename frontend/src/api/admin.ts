// The admin's actions. Reads go through the SWR hooks; these are the writes.
import { send } from './client';
import type { Post } from './types';

export async function login(username: string, password: string): Promise<string> {
  const res = await send<{ token?: unknown }>('/api/auth/login', { username, password });
  if (!res || typeof res.token !== 'string' || res.token === '') {
    throw new Error('no token in the answer');
  }
  return res.token;
}

export function logout(): Promise<null> {
  return send<null>('/api/auth/logout');
}

/** Log out everywhere: revoke every session of the admin, in every browser. */
export function logoutEverywhere(): Promise<null> {
  return send<null>('/api/auth/logout-all');
}

/** Approve a draft; an edited response is sent along, else an empty object. */
export function approvePost(id: number, editedResponse?: string): Promise<Post> {
  const body = editedResponse === undefined ? {} : { response: editedResponse };
  return send<Post>(`/api/posts/${id}/approve`, body);
}

export function rejectPost(id: number): Promise<Post> {
  return send<Post>(`/api/posts/${id}/reject`, {});
}

export function generateProfileTweet(): Promise<unknown> {
  return send<unknown>('/api/posts/profile/generate');
}

/** Defined by the API but, as the spec says, wired to no button. */
export function generateTargetedScan(): Promise<unknown> {
  return send<unknown>('/api/posts/targeted/generate');
}
