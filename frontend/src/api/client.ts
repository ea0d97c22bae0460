// The one way the app talks to the server: the SWR fetcher for reads and
// send() for actions. Both add the admin's bearer token when one is stored
// and turn a non-OK answer into an ApiError that carries the HTTP status.

export const TOKEN_KEY = 'token';

/**
 * The window event request() dispatches when the server refused the stored
 * token (a 401 to a request that carried one): the token is already
 * forgotten, and the admin area (useSessionGuard) goes to the login.
 */
export const SESSION_LOST_EVENT = 'infernal:session-lost';

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  window.localStorage.setItem(TOKEN_KEY, token);
}

export function clearToken(): void {
  try {
    window.localStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage unavailable: nothing to clear.
  }
}

/** An error answer: status is the HTTP status, message the server's `error` text when it sent one. */
export class ApiError extends Error {
  readonly status: number;
  /** The server's own message ({"error": "..."}), when there was one. */
  readonly serverMessage?: string;
  /** The JSON path of the bad value a settings 400 names ({"field": "..."}), when there was one. */
  readonly field?: string;
  /** The flags that refused an approval ({"error", "flags": [...]}, a 422), when named. */
  readonly flags?: string[];
  /** The current draft version when a decision named a stale one ({"error", "draft_version"}, a 409). */
  readonly draftVersion?: number;

  constructor(status: number, serverMessage?: string, field?: string, flags?: string[], draftVersion?: number) {
    super(serverMessage || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.serverMessage = serverMessage;
    this.field = field;
    this.flags = flags;
    this.draftVersion = draftVersion;
  }
}

/** Why a call failed, in the server's words when it gave some. */
export function errorDetail(err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function statusOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.status : undefined;
}

/** A body sent as it is, under its own media type, not as JSON (an NDJSON import). */
interface RawBody {
  raw: string;
  type: string;
}

async function request<T>(method: string, url: string, body?: unknown, rawBody?: RawBody): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (rawBody) headers['Content-Type'] = rawBody.type;
  else if (body !== undefined) headers['Content-Type'] = 'application/json';

  const res = await fetch(url, {
    method,
    headers,
    body: rawBody ? rawBody.raw : body === undefined ? undefined : JSON.stringify(body),
  });
  // The one place a refused session is handled, for every read and action alike.
  if (res.status === 401 && token) {
    clearToken();
    window.dispatchEvent(new Event(SESSION_LOST_EVENT));
  }
  if (!res.ok) {
    let message: string | undefined;
    let field: string | undefined;
    let flags: string[] | undefined;
    let draftVersion: number | undefined;
    try {
      const data: unknown = await res.json();
      if (data && typeof data === 'object') {
        const {
          error,
          field: namedField,
          flags: namedFlags,
          draft_version: version,
        } = data as { error?: unknown; field?: unknown; flags?: unknown; draft_version?: unknown };
        if (typeof error === 'string') message = error;
        if (typeof namedField === 'string') field = namedField;
        if (Array.isArray(namedFlags) && namedFlags.every((f) => typeof f === 'string')) flags = namedFlags;
        if (typeof version === 'number' && Number.isInteger(version)) draftVersion = version;
      }
    } catch {
      // Not JSON: keep the status alone.
    }
    throw new ApiError(res.status, message, field, flags, draftVersion);
  }
  if (res.status === 204) return null as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** The SWR fetcher registered in <SWRConfig>: GET the key. */
export function fetcher<T>(url: string): Promise<T> {
  return request<T>('GET', url);
}

/** POST an action; body is sent as JSON when given. */
export function send<T>(url: string, body?: unknown): Promise<T> {
  return request<T>('POST', url, body);
}

/** PUT a resource's new state as JSON. */
export function put<T>(url: string, body: unknown): Promise<T> {
  return request<T>('PUT', url, body);
}

/** PATCH some fields of a resource, as JSON. */
export function patch<T>(url: string, body: unknown): Promise<T> {
  return request<T>('PATCH', url, body);
}

/** DELETE a resource; a 204 answers null. */
export function remove(url: string): Promise<null> {
  return request<null>('DELETE', url);
}

/** POST text as it is under its media type (type), e.g. JSON lines as application/x-ndjson. */
export function sendText<T>(url: string, text: string, type: string): Promise<T> {
  return request<T>('POST', url, undefined, { raw: text, type });
}
