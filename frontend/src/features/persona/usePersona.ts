import useSWR from 'swr';
import type { Persona, PersonaVersions } from '../../api/types';

export const PERSONA_KEY = '/api/persona';
export const PERSONA_VERSIONS_KEY = '/api/persona/versions';

/** The persona as stored (its newest version); read once, not polled, so an edit is never overwritten. */
export function usePersona() {
  return useSWR<Persona>(PERSONA_KEY, { revalidateOnFocus: false, revalidateOnReconnect: false });
}

/** Every stored version of the persona, newest first; a save revalidates it. */
export function usePersonaVersions() {
  return useSWR<PersonaVersions>(PERSONA_VERSIONS_KEY, { revalidateOnFocus: false, revalidateOnReconnect: false });
}
