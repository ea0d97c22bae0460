// Pure helpers of the persona editor: the limits the server holds it to, the
// form and back, and which field (or list entry) a server error names.
import type { PersonaInput } from '../../api/types';
import { RESPONSE_LIMIT, weightedLength } from '../../lib/length';
import type { FormError } from '../../lib/formError';

// The limits of pkg/persona (Normalize), in characters (code points) unless said.
/** The longest name. */
export const NAME_LIMIT = 50;
/** The longest bio. */
export const BIO_LIMIT = 1000;
/** The longest voice. */
export const VOICE_LIMIT = 4000;
/** The most examples a persona may hold. */
export const MAX_EXAMPLES = 20;
/** The longest example, in weighted characters (as a reply is counted). */
export const EXAMPLE_LIMIT = RESPONSE_LIMIT;
/** The most topics to avoid. */
export const MAX_AVOID_TOPICS = 50;
/** The longest topic to avoid. */
export const AVOID_TOPIC_LIMIT = 100;

/** The fields the editor shows an error beside (the preview's post among them). */
export const SHOWN_FIELDS: readonly string[] = ['name', 'bio', 'voice', 'examples', 'avoid_topics', 'post_text'];

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
 * first limit it breaks, named and worded as the server names and words it
 * ("examples[2]" is the third example sent). Whether the voice may be empty
 * is left to the server, whose 400 names the field all the same.
 */
export function fromPersonaForm(form: PersonaForm): { persona: PersonaInput } | { error: FormError } {
  const persona: PersonaInput = {
    name: form.name.trim(),
    bio: form.bio.trim(),
    voice: form.voice.trim(),
    examples: entries(form.examples),
    avoid_topics: entries(form.avoid_topics),
  };
  const error = personaProblem(persona);
  return error ? { error } : { persona };
}

function tooLong(field: string, text: string, limit: number): FormError | null {
  const n = charCount(text);
  return n > limit ? { field, message: `${field}: is ${n} characters, more than ${limit}` } : null;
}

function tooMany(field: string, list: readonly string[], limit: number): FormError | null {
  return list.length > limit ? { field, message: `${field}: holds ${list.length} entries, more than ${limit}` } : null;
}

/** The first limit a (trimmed) persona breaks, in the server's order, or null. */
function personaProblem(p: PersonaInput): FormError | null {
  const first =
    tooLong('name', p.name, NAME_LIMIT) ??
    tooLong('bio', p.bio, BIO_LIMIT) ??
    tooLong('voice', p.voice, VOICE_LIMIT) ??
    tooMany('examples', p.examples, MAX_EXAMPLES);
  if (first) return first;
  for (const [i, example] of p.examples.entries()) {
    const n = weightedLength(example);
    if (n > EXAMPLE_LIMIT) {
      const field = `examples[${i}]`;
      return { field, message: `${field}: is ${n} weighted characters, more than ${EXAMPLE_LIMIT}` };
    }
  }
  const topics = tooMany('avoid_topics', p.avoid_topics, MAX_AVOID_TOPICS);
  if (topics) return topics;
  for (const [i, topic] of p.avoid_topics.entries()) {
    const err = tooLong(`avoid_topics[${i}]`, topic, AVOID_TOPIC_LIMIT);
    if (err) return err;
  }
  return null;
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


/** What the panel says after a save. */
export function savedMessage(version: number): string {
  return `Persona saved as version ${version}: the next drafts use it`;
}

/** A preview's 503, its reason ("no worker wrote the preview in time; …") as a sentence. */
export function timeoutMessage(detail: string): string {
  return `No preview: ${detail.trim().replace(/\.$/, '')}.`;
}
