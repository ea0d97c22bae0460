/** The persona's handle, set at build time with VITE_PERSONA_HANDLE (the server's PERSONA_HANDLE). */
export const PERSONA_HANDLE: string = import.meta.env.VITE_PERSONA_HANDLE || 'infernal_ai';

/** The persona's page on the platform. */
export const FOLLOW_URL = `https://x.com/${encodeURIComponent(PERSONA_HANDLE)}`;
