/** PERSONA_MESSAGES: the Persona section's fixed texts. */
export const PERSONA_MESSAGES = {
  saveFailed: 'Failed to save the persona',
  loadFailed: 'Failed to fetch the persona',
  versionsFailed: 'Failed to fetch the persona versions',
  previewWaiting: 'The writer is drafting a preview…',
  previewTimeout: 'No worker answered in time, so there is no preview. Try again in a moment.',
  previewFailed: 'Preview failed',
} as const;
