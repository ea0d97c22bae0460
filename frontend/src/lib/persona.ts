/** The persona's handle, set at build time with VITE_PERSONA_HANDLE (the server's PERSONA_HANDLE). */
export const PERSONA_HANDLE: string = import.meta.env.VITE_PERSONA_HANDLE || 'infernal_ai';

/** The persona's page on the platform. */
export const FOLLOW_URL = `https://x.com/${encodeURIComponent(PERSONA_HANDLE)}`;

/** The admin area's path prefix. */
export const ADMIN_PREFIX = '/diaries666op';
export const ADMIN_LOGIN_PATH = `${ADMIN_PREFIX}/login`;
export const ADMIN_DASHBOARD_PATH = `${ADMIN_PREFIX}/dashboard`;
/** The queue dashboard (asynqmon), served by the web binary. */
export const OPS_PATH = `${ADMIN_PREFIX}/queues/`;
