// The product's constants that more than one module needs, each defined once
// for the frontend (the server keeps its own in Go). No imports and no
// import.meta here: vite.config.ts reads this file under Node too.

/** The admin area's path prefix. */
export const ADMIN_PREFIX = '/diaries666op';
export const ADMIN_LOGIN_PATH = `${ADMIN_PREFIX}/login`;
export const ADMIN_DASHBOARD_PATH = `${ADMIN_PREFIX}/dashboard`;
/** The queue dashboard (asynqmon), served by the web binary. */
export const OPS_PATH = `${ADMIN_PREFIX}/queues/`;

/** The admin's lists, statistics and spend reload every 30 seconds. */
export const ADMIN_REFRESH_MS = 30_000;

/** The public logs page size; the offset is page index × this. */
export const LOGS_PAGE_SIZE = 15;

/** Generation settings a log message shows when it does not carry them. */
export const DEFAULT_SAMPLING = 0.3;
