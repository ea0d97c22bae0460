import { describe, expect, it } from 'vitest';
import type { PersonaInput } from '../api/types';
import { charCount, errorPlace, EXAMPLE_LIMIT, fromPersonaForm, MAX_EXAMPLES, toPersonaForm, VOICE_LIMIT } from './personaForm';

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
      name: 'a voice over 4,000 characters',
      edit: { voice: 'v'.repeat(VOICE_LIMIT + 1) },
      want: { field: 'voice', message: 'voice: 4001 characters, more than 4000' },
    },
    {
      name: 'more than 20 examples',
      edit: { examples: Array.from({ length: MAX_EXAMPLES + 1 }, (_, i) => `example ${i}`) },
      want: { field: 'examples', message: 'examples: 21 examples, more than 20' },
    },
    {
      name: 'an example over 280 weighted characters, named by its place among those sent',
      edit: { examples: ['ok', '', '😀'.repeat(141)] },
      want: { field: 'examples[1]', message: 'examples[1]: 282 weighted characters, more than 280' },
    },
  ])('refuses $name', ({ edit, want }) => {
    expect(fromPersonaForm({ ...toPersonaForm(persona), ...edit })).toEqual({ error: want });
  });

  it('takes the limits themselves', () => {
    const form = {
      ...toPersonaForm(persona),
      voice: 'v'.repeat(VOICE_LIMIT),
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
