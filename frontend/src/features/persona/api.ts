// The persona's writes: a new version, and a preview of an unsaved one; the reads are usePersona.
import { put, send } from '../../api/client';
import type { Persona, PersonaInput, PersonaPreview } from '../../api/types';

/** Store the persona as a new version; answers that version, or throws an ApiError naming the bad field. */
export function savePersona(persona: PersonaInput): Promise<Persona> {
  return put<Persona>('/api/persona', persona);
}

/**
 * What the writer would answer post_text with, written with the given
 * (unsaved) persona: creates no post. A 503 means no worker answered in time.
 */
export function previewPersona(postText: string, persona: PersonaInput): Promise<PersonaPreview> {
  return send<PersonaPreview>('/api/persona/preview', { post_text: postText, persona });
}
