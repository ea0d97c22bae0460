// Pure helpers of the persona editor: the limits the server holds it to, the
// form and back, and which field (or list entry) a server error names.
import type { PersonaInput } from '../api/types';
import { RESPONSE_LIMIT, weightedLength } from './length';
import type { FormError } from './settingsForm';

/** The longest voice, in characters. */
export const VOICE_LIMIT = 4000;
/** The most examples a persona may hold. */
export const MAX_EXAMPLES = 20;
/** The longest example, in weighted characters (as a reply is counted). */
export const EXAMPLE_LIMIT = RESPONSE_LIMIT;

/** The list fields of the persona. */
export type PersonaList = 'examples' | 'avoid_topics';

/** The persona as the editor holds it: each list entry its own input, blank ones included. */
export interface PersonaForm {
  name: string;
  bio: string;
  voice: string;
  examples: string[];
  avoid_topics: string[];
}

export function toPersonaForm(p: PersonaInput): PersonaForm {
  return {
    name: p.name ?? '',
    bio: p.bio ?? '',
    voice: p.voice ?? '',
    examples: [...(p.examples ?? [])],
    avoid_topics: [...(p.avoid_topics ?? [])],
  };
}

/** A text's length in characters (code points, as the server counts the voice). */
export function charCount(text: string): number {
  return [...text].length;
}

/** The entries of a list that are sent: trimmed, blank ones dropped. */
function entries(list: readonly string[]): string[] {
  return list.map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The persona to send: text fields trimmed, blank list entries dropped; or the
 * first limit it breaks, named as the server names fields ("examples[2]" is the
 * third example sent). Whether a field may be empty is left to the server,
 * whose 400 names the field all the same.
 */
export function fromPersonaForm(form: PersonaForm): { persona: PersonaInput } | { error: FormError } {
  const persona: PersonaInput = {
    name: form.name.trim(),
    bio: form.bio.trim(),
    voice: form.voice.trim(),
    examples: entries(form.examples),
    avoid_topics: entries(form.avoid_topics),
  };
  const voice = charCount(persona.voice);
  if (voice > VOICE_LIMIT) {
    return { error: { field: 'voice', message: `voice: ${voice} characters, more than ${VOICE_LIMIT}` } };
  }
  if (persona.examples.length > MAX_EXAMPLES) {
    return {
      error: { field: 'examples', message: `examples: ${persona.examples.length} examples, more than ${MAX_EXAMPLES}` },
    };
  }
  for (const [i, example] of persona.examples.entries()) {
    const length = weightedLength(example);
    if (length > EXAMPLE_LIMIT) {
      return {
        error: { field: `examples[${i}]`, message: `examples[${i}]: ${length} weighted characters, more than ${EXAMPLE_LIMIT}` },
      };
    }
  }
  return { persona };
}

/**
 * Where the editor shows an error whose JSON path is path: the field, and for
 * a list entry ("examples[2]", counted among the entries sent) the row of the
 * form it came from. A preview's "persona.voice" is the voice.
 */
export function errorPlace(path: string, form: PersonaForm): { field: string; row?: number } {
  const bare = path.replace(/^persona\./, '');
  const m = /^(examples|avoid_topics)\[(\d+)\]$/.exec(bare);
  if (!m) return { field: bare };
  const field = m[1] as PersonaList;
  const sent = Number(m[2]);
  let seen = -1;
  for (const [row, value] of form[field].entries()) {
    if (value.trim() !== '') seen++;
    if (seen === sent) return { field, row };
  }
  return { field };
}

