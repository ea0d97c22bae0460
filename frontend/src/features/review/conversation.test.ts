import { describe, expect, it } from 'vitest';
import type { ConversationItem, ConversationRelation } from '../../api/types';
import { authorHandle, earlierToggleLabel, splitConversation } from './conversation';

function item(id: string, relation: ConversationRelation): ConversationItem {
  return { relation, author_username: `u_${id}`, text: `text ${id}`, created_at: null, platform_post_id: id, media: [], link: null, content_warning: '' };
}

const ids = (items: ConversationItem[]) => items.map((i) => i.platform_post_id);

describe('splitConversation', () => {
  const cases: { name: string; items: ConversationItem[] | null | undefined; open?: number; want: { earlier: string[]; visible: string[]; quoted: string[] } }[] = [
    { name: 'none', items: [], want: { earlier: [], visible: [], quoted: [] } },
    { name: 'null items', items: null, want: { earlier: [], visible: [], quoted: [] } },
    { name: 'a parent alone', items: [item('p', 'parent')], want: { earlier: [], visible: ['p'], quoted: [] } },
    {
      name: 'two thread posts show both',
      items: [item('a', 'ancestor'), item('p', 'parent')],
      want: { earlier: [], visible: ['a', 'p'], quoted: [] },
    },
    {
      name: 'four ancestors, a parent and a quote',
      items: [item('a1', 'ancestor'), item('a2', 'ancestor'), item('a3', 'ancestor'), item('a4', 'ancestor'), item('p', 'parent'), item('q', 'quoted')],
      want: { earlier: ['a1', 'a2', 'a3'], visible: ['a4', 'p'], quoted: ['q'] },
    },
    {
      name: 'the persona stays in the thread, in place',
      items: [item('a1', 'ancestor'), item('me', 'persona'), item('a2', 'ancestor'), item('p', 'parent')],
      want: { earlier: ['a1', 'me'], visible: ['a2', 'p'], quoted: [] },
    },
    { name: 'a quote alone', items: [item('q', 'quoted')], want: { earlier: [], visible: [], quoted: ['q'] } },
    {
      name: 'a quote out of place is still the quote',
      items: [item('q', 'quoted'), item('a', 'ancestor'), item('b', 'ancestor'), item('p', 'parent')],
      want: { earlier: ['a'], visible: ['b', 'p'], quoted: ['q'] },
    },
    {
      name: 'open 0 hides the whole thread',
      items: [item('a', 'ancestor'), item('p', 'parent')],
      open: 0,
      want: { earlier: ['a', 'p'], visible: [], quoted: [] },
    },
  ];
  it.each(cases)('$name', ({ items, open, want }) => {
    const got = splitConversation(items, open);
    expect({ earlier: ids(got.earlier), visible: ids(got.visible), quoted: ids(got.quoted) }).toEqual(want);
  });

  it('does not change the items it is given', () => {
    const items = [item('a', 'ancestor'), item('b', 'ancestor'), item('p', 'parent'), item('q', 'quoted')];
    const copy = structuredClone(items);
    splitConversation(items);
    expect(items).toEqual(copy);
  });
});

describe('earlierToggleLabel', () => {
  it.each([
    { count: 1, open: false, want: 'Show 1 earlier post' },
    { count: 3, open: false, want: 'Show 3 earlier posts' },
    { count: 3, open: true, want: 'Hide earlier posts' },
  ])('$count, open $open', ({ count, open, want }) => {
    expect(earlierToggleLabel(count, open)).toBe(want);
  });
});

describe('authorHandle', () => {
  it.each([
    { username: 'sinner_1', want: '@sinner_1' },
    { username: '@sinner_1', want: '@sinner_1' },
    { username: '', want: 'unknown author' },
    { username: '  ', want: 'unknown author' },
  ])('"$username"', ({ username, want }) => {
    expect(authorHandle(username)).toBe(want);
  });
});
