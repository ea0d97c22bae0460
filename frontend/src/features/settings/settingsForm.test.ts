import { describe, expect, it } from 'vitest';
import type { PlatformDescriptor, PlatformOptions, Settings, SettingsCaps, SettingsInput } from '../../api/types';
import {
  accountNote,
  CAP_FIELDS,
  CAP_RANGES,
  copyOptions,
  DEFAULT_LEARNING,
  fieldKey,
  fromForm,
  targetsHint,
  toForm,
  type CapField,
} from './settingsForm';

const caps: SettingsCaps = { per_conversation: 1, per_author_per_day: 3, sends_per_3h: 10, sends_per_day: 50, near_duplicate: 0.8, context_depth: 5, min_review_score: 3, drafts_per_hour: 120 };
/** The settings as sent. */
const sent: SettingsInput = {
  target_usernames: ['sinner_1', 'sinner_2'],
  search_topics: ['monday', 'cold brew'],
  blocked_authors: [],
  blocked_phrases: ['scam coin'],
  caps,
  learning: { enabled: false, examples: 0, lessons: 10 },
  platforms: { mastodon: { reply_to_direct: true } },
};
/** The settings as answered: targets_not_found, target_ids and blocked_author_ids are never sent. */
const settings: Settings = {
  ...sent,
  caps,
  targets_not_found: ['ghost'],
  target_ids: [
    { entry: 'sinner_1', handle: 'sinner_1', id: '123' },
    { entry: 'sinner_2', handle: 'sinner_2', id: null },
  ],
  blocked_author_ids: [],
  learning: { enabled: false, examples: 0, lessons: 10 },
  autopilot: { enabled: false, min_review_score: 5, authors: [], any_author: false, categories: [], max_per_hour: 5, grace_seconds: 120 },
  knowledge: { chunks: 3 },
  platforms: { mastodon: { reply_to_direct: true } },
};

describe('toForm and fromForm', () => {
  it('round-trips the settings', () => {
    expect(fromForm(toForm(settings))).toEqual({ settings: sent });
  });

  it.each([
    { name: 'blank lines and spaces dropped', edit: { search_topics: '  monday \n\n cold brew\n' }, want: { search_topics: ['monday', 'cold brew'] } },
    { name: 'an emptied list', edit: { target_usernames: '\n  \n' }, want: { target_usernames: [] } },
  ])('$name', ({ edit, want }) => {
    const form = toForm(settings);
    form.lists = { ...form.lists, ...edit };
    const out = fromForm(form);
    expect(out).toHaveProperty('settings');
    if ('settings' in out) expect(out.settings).toMatchObject(want);
  });

  it.each([
    { name: 'an empty cap takes the default', raw: '', want: { settings: { ...sent, caps: { ...sent.caps, sends_per_day: 0 } } } },
    { name: 'a word is refused', raw: 'lots', want: { error: { field: 'caps.sends_per_day', message: 'caps.sends_per_day: "lots" is not a number' } } },
    { name: 'an empty context depth takes the default', field: 'context_depth', raw: ' ', want: { settings: { ...sent, caps: { ...sent.caps, context_depth: 0 } } } },
    { name: 'a context depth is a number', field: 'context_depth', raw: '12', want: { settings: { ...sent, caps: { ...sent.caps, context_depth: 12 } } } },
    { name: 'an empty minimum review score is off', field: 'min_review_score', raw: '', want: { settings: { ...sent, caps: { ...sent.caps, min_review_score: 0 } } } },
    { name: 'a minimum review score is a number', field: 'min_review_score', raw: '4', want: { settings: { ...sent, caps: { ...sent.caps, min_review_score: 4 } } } },
    { name: 'a word for the context depth is refused', field: 'context_depth', raw: 'deep', want: { error: { field: 'caps.context_depth', message: 'caps.context_depth: "deep" is not a number' } } },
    { name: 'infinity is refused', raw: 'Infinity', want: { error: { field: 'caps.sends_per_day', message: 'caps.sends_per_day: "Infinity" is not a number' } } },
  ] as { name: string; field?: CapField; raw: string; want: unknown }[])('$name', ({ field = 'sends_per_day', raw, want }) => {
    const form = toForm(settings);
    form.caps = { ...form.caps, [field]: raw };
    expect(fromForm(form)).toEqual(want);
  });
});

describe("the platforms' own options", () => {
  it.each<{ name: string; stored: PlatformOptions | undefined; want: PlatformOptions }>([
    { name: 'on, kept on', stored: { mastodon: { reply_to_direct: true } }, want: { mastodon: { reply_to_direct: true } } },
    { name: 'off, kept off', stored: { mastodon: { reply_to_direct: false } }, want: { mastodon: { reply_to_direct: false } } },
    { name: 'of a platform the editor does not show, kept', stored: { other: { a: true, b: false } }, want: { other: { a: true, b: false } } },
    { name: 'absent (an older server): none sent, the stored ones kept', stored: undefined, want: {} },
  ])('$name', ({ stored, want }) => {
    const answer = { ...settings, platforms: stored } as Settings;
    const out = fromForm(toForm(answer));
    expect(out).toHaveProperty('settings');
    if ('settings' in out) expect(out.settings.platforms).toEqual(want);
  });

  it('sends the checkbox as edited, whatever else the form holds', () => {
    const form = toForm(settings);
    form.platforms = { ...form.platforms, mastodon: { reply_to_direct: false } };
    const out = fromForm(form);
    expect(out).toEqual({ settings: { ...sent, platforms: { mastodon: { reply_to_direct: false } } } });
  });

  it('copies, so that an edit of the form never changes the answer it came from', () => {
    const stored = { mastodon: { reply_to_direct: true } };
    const copy = copyOptions(stored);
    copy.mastodon.reply_to_direct = false;
    expect(stored).toEqual({ mastodon: { reply_to_direct: true } });
  });
});

describe('CAP_RANGES', () => {
  it('gives every cap a range, the context depth 1 to 20', () => {
    expect(Object.keys(CAP_RANGES).sort()).toEqual([...CAP_FIELDS].sort());
    expect(CAP_RANGES.context_depth).toEqual({ min: 1, max: 20, step: 1 });
    expect(CAP_RANGES.min_review_score).toEqual({ min: 0, max: 5, step: 1 });
  });
});

describe('fieldKey', () => {
  it.each([
    { path: 'target_usernames[2]', want: 'target_usernames' },
    { path: 'search_topics', want: 'search_topics' },
    { path: 'caps.sends_per_day', want: 'caps.sends_per_day' },
    { path: undefined, want: undefined },
  ])('$path', ({ path, want }) => {
    expect(fieldKey(path)).toBe(want);
  });
});

describe('accountNote', () => {
  it.each([
    { name: 'a handle with its id', account: { entry: 'alice', handle: 'alice', id: '123' }, want: 'alice: id 123' },
    { name: 'an id with its handle', account: { entry: '4242', handle: 'seven', id: '4242' }, want: '4242: @seven' },
    {
      name: 'a DID with its handle',
      account: { entry: 'did:plc:z72i7hdynmk6r22z27h6tvur', handle: 'bsky.app', id: 'did:plc:z72i7hdynmk6r22z27h6tvur' },
      want: 'did:plc:z72i7hdynmk6r22z27h6tvur: @bsky.app',
    },
    { name: 'a handle not yet resolved', account: { entry: 'bob', handle: 'bob', id: null }, want: null },
    { name: 'an id not yet seen', account: { entry: '777', handle: null, id: '777' }, want: null },
  ])('$name', ({ account, want }) => {
    expect(accountNote(account)).toBe(want);
  });
});

describe('the learning settings', () => {
  it('an answer without them takes the defaults', () => {
    const older: Partial<Settings> = { ...settings };
    delete older.learning;
    const out = fromForm(toForm(older as Settings));
    expect(out).toEqual({ settings: { ...sent, learning: DEFAULT_LEARNING } });
  });

  it.each([
    { name: 'the most examples', field: 'examples', raw: '8', want: { settings: { ...sent, learning: { ...sent.learning, examples: 8 } } } },
    { name: 'no lessons', field: 'lessons', raw: ' 0 ', want: { settings: { ...sent, learning: { ...sent.learning, lessons: 0 } } } },
    { name: 'too many examples', field: 'examples', raw: '9', want: { error: { field: 'learning.examples', message: 'learning.examples: "9" is not a whole number from 0 to 8' } } },
    { name: 'too many lessons', field: 'lessons', raw: '11', want: { error: { field: 'learning.lessons', message: 'learning.lessons: "11" is not a whole number from 0 to 10' } } },
    { name: 'below zero', field: 'lessons', raw: '-1', want: { error: { field: 'learning.lessons', message: 'learning.lessons: "-1" is not a whole number from 0 to 10' } } },
    { name: 'a fraction', field: 'examples', raw: '2.5', want: { error: { field: 'learning.examples', message: 'learning.examples: "2.5" is not a whole number from 0 to 8' } } },
    { name: 'empty', field: 'examples', raw: '', want: { error: { field: 'learning.examples', message: 'learning.examples: "" is not a whole number from 0 to 8' } } },
    { name: 'a word', field: 'lessons', raw: 'many', want: { error: { field: 'learning.lessons', message: 'learning.lessons: "many" is not a whole number from 0 to 10' } } },
  ] as { name: string; field: 'examples' | 'lessons'; raw: string; want: unknown }[])('$name', ({ field, raw, want }) => {
    const form = toForm(settings);
    form.learning = { ...form.learning, numbers: { ...form.learning.numbers, [field]: raw } };
    expect(fromForm(form)).toEqual(want);
  });

  it('turns learning on', () => {
    const form = toForm(settings);
    form.learning = { ...form.learning, enabled: true };
    expect(fromForm(form)).toEqual({ settings: { ...sent, learning: { ...sent.learning, enabled: true } } });
  });
});

describe('targetsHint', () => {
  const row = (name: string, running: boolean, account_hint: string) =>
    ({ name, label: name, max_length: 280, length_rule: 'weighted', post_url_pattern: '', simulated: false, running, account_hint, options: [] }) as PlatformDescriptor;
  const plain = 'Accounts whose recent posts are answered, one a line, by handle or id.';
  it.each([
    { name: 'the table unread', table: [], want: plain },
    { name: 'none running', table: [row('x', false, 'on X a handle or a user id')], want: plain },
    {
      name: 'the running ones, each syntax once (the sandbox writes as X)',
      table: [
        row('x', true, 'on X a handle or a user id'),
        row('bluesky', false, 'on Bluesky a handle like alice.bsky.social or a DID'),
        row('mastodon', true, 'on Mastodon the account with its server, like @alice@mastodon.social'),
        row('sandbox', true, 'on X a handle or a user id'),
      ],
      want: 'Accounts whose recent posts are answered, one a line: on X a handle or a user id; on Mastodon the account with its server, like @alice@mastodon.social.',
    },
  ])('$name', ({ table, want }) => {
    expect(targetsHint(table)).toBe(want);
  });
});
