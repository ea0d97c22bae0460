import { describe, expect, it } from 'vitest';
import type { PersonaInput } from '../../api/types';
import {
  AVOID_TOPIC_LIMIT,
  BIO_LIMIT,
  charCount,
  errorPlace,
  EXAMPLE_LIMIT,
  fromPersonaForm,
  MAX_AVOID_TOPICS,
  MAX_EXAMPLES,
  NAME_LIMIT,
  savedMessage,
  SHOWN_FIELDS,
  timeoutMessage,
  toPersonaForm,
  VOICE_LIMIT,
} from './personaForm';

const persona: PersonaInput = {
  name: 'Infernal',
  bio: 'A voice from below.',
  voice: 'Dry, theatrical, never cruel to the weak.',
  examples: ['Mondays were my idea.', 'Your sourdough rises. So will your hubris.'],
  avoid_topics: ['grief', 'elections'],
};

describe('toPersonaForm and fromPersonaForm', () => {
  it('round-trips a persona', () => {
    expect(fromPersonaForm(toPersonaForm(persona))).toEqual({ persona });
  });

  it('copies the lists, so editing the form leaves the persona alone', () => {
    const form = toPersonaForm(persona);
    form.examples.push('new');
    expect(persona.examples).toHaveLength(2);
  });

  it('trims the fields and drops blank list entries', () => {
    const form = { ...toPersonaForm(persona), name: ' Infernal ', examples: ['', ' Mondays were my idea. ', '  '], avoid_topics: [' grief'] };
    expect(fromPersonaForm(form)).toEqual({
      persona: { ...persona, examples: ['Mondays were my idea.'], avoid_topics: ['grief'] },
    });
  });

  it('leaves an empty voice to the server, which names it', () => {
    expect(fromPersonaForm({ ...toPersonaForm(persona), voice: '  ' })).toEqual({ persona: { ...persona, voice: '' } });
  });

  it.each([
    {
      name: 'a name over 50 characters',
      edit: { name: 'n'.repeat(NAME_LIMIT + 1) },
      want: { field: 'name', message: 'name: is 51 characters, more than 50' },
    },
    {
      name: 'a bio over 1,000 characters',
      edit: { bio: 'b'.repeat(BIO_LIMIT + 1) },
      want: { field: 'bio', message: 'bio: is 1001 characters, more than 1000' },
    },
    {
      name: 'a voice over 4,000 characters (counted as characters, not UTF-16 units)',
      edit: { voice: '🔥'.repeat(VOICE_LIMIT + 1) },
      want: { field: 'voice', message: 'voice: is 4001 characters, more than 4000' },
    },
    {
      name: 'more than 20 examples',
      edit: { examples: Array.from({ length: MAX_EXAMPLES + 1 }, (_, i) => `example ${i}`) },
      want: { field: 'examples', message: 'examples: holds 21 entries, more than 20' },
    },
    {
      name: 'an example over 280 weighted characters, named by its place among those sent',
      edit: { examples: ['ok', '', '😀'.repeat(141)] },
      want: { field: 'examples[1]', message: 'examples[1]: is 282 weighted characters, more than 280' },
    },
    {
      name: 'more than 50 topics to avoid',
      edit: { avoid_topics: Array.from({ length: MAX_AVOID_TOPICS + 1 }, (_, i) => `topic ${i}`) },
      want: { field: 'avoid_topics', message: 'avoid_topics: holds 51 entries, more than 50' },
    },
    {
      name: 'a topic to avoid over 100 characters',
      edit: { avoid_topics: ['grief', 't'.repeat(AVOID_TOPIC_LIMIT + 1)] },
      want: { field: 'avoid_topics[1]', message: 'avoid_topics[1]: is 101 characters, more than 100' },
    },
    {
      name: 'the first problem only, in the server\'s order',
      edit: { voice: 'v'.repeat(VOICE_LIMIT + 1), bio: 'b'.repeat(BIO_LIMIT + 1) },
      want: { field: 'bio', message: 'bio: is 1001 characters, more than 1000' },
    },
  ])('refuses $name', ({ edit, want }) => {
    expect(fromPersonaForm({ ...toPersonaForm(persona), ...edit })).toEqual({ error: want });
  });

  it('takes the limits themselves', () => {
    const form = {
      ...toPersonaForm(persona),
      name: 'n'.repeat(NAME_LIMIT),
      bio: 'b'.repeat(BIO_LIMIT),
      voice: 'v'.repeat(VOICE_LIMIT),
      avoid_topics: Array.from({ length: MAX_AVOID_TOPICS }, () => 't'.repeat(AVOID_TOPIC_LIMIT)),
      examples: ['e'.repeat(EXAMPLE_LIMIT), ...Array.from({ length: MAX_EXAMPLES - 1 }, () => 'x')],
    };
    expect(fromPersonaForm(form)).toHaveProperty('persona');
  });
});

describe('charCount', () => {
  it('counts characters, not UTF-16 units', () => {
    expect(charCount('')).toBe(0);
    expect(charCount('hell')).toBe(4);
    expect(charCount('🔥🔥')).toBe(2);
  });
});

describe('errorPlace', () => {
  const form = { ...toPersonaForm(persona), examples: ['', 'first sent', '  ', 'second sent'] };

  it('names a field the editor has no place for as it is', () => {
    expect(errorPlace('version', form)).toEqual({ field: 'version' });
    expect(SHOWN_FIELDS).not.toContain('version');
  });

  it.each([
    { path: 'voice', want: { field: 'voice' } },
    { path: 'persona.voice', want: { field: 'voice' } },
    { path: 'examples', want: { field: 'examples' } },
    { path: 'examples[0]', want: { field: 'examples', row: 1 } },
    { path: 'examples[1]', want: { field: 'examples', row: 3 } },
    { path: 'persona.examples[1]', want: { field: 'examples', row: 3 } },
    { path: 'examples[7]', want: { field: 'examples' } },
    { path: 'avoid_topics[1]', want: { field: 'avoid_topics', row: 1 } },
    { path: 'post_text', want: { field: 'post_text' } },
  ])('places $path', ({ path, want }) => {
    expect(errorPlace(path, form)).toEqual(want);
  });
});

describe('messages', () => {
  it('names the version saved', () => {
    expect(savedMessage(4)).toBe('Persona saved as version 4: the next drafts use it');
  });

  it('words a 503 as one sentence', () => {
    expect(timeoutMessage('no worker wrote the preview in time; try again shortly')).toBe(
      'No preview: no worker wrote the preview in time; try again shortly.',
    );
    expect(timeoutMessage('the budget is spent. ')).toBe('No preview: the budget is spent.');
  });
});
