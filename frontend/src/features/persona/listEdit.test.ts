import { describe, expect, it } from 'vitest';
import { moved, withAdded, withItem, withoutItem } from './listEdit';

describe('list editing', () => {
  const list = ['a', 'b', 'c'] as const;

  it('replaces an entry, leaving the list given untouched', () => {
    const before = [...list];
    expect(withItem(before, 1, 'B')).toEqual(['a', 'B', 'c']);
    expect(before).toEqual(['a', 'b', 'c']);
  });

  it('ignores an index outside the list', () => {
    expect(withItem(list, 3, 'x')).toEqual(['a', 'b', 'c']);
    expect(withItem(list, -1, 'x')).toEqual(['a', 'b', 'c']);
  });

  it('removes and adds entries', () => {
    expect(withoutItem(list, 0)).toEqual(['b', 'c']);
    expect(withoutItem(list, 5)).toEqual(['a', 'b', 'c']);
    expect(withAdded(list, '')).toEqual(['a', 'b', 'c', '']);
    expect(withAdded([], 'x')).toEqual(['x']);
  });

  it.each([
    { name: 'up', i: 1, step: -1, want: ['b', 'a', 'c'] },
    { name: 'down', i: 1, step: 1, want: ['a', 'c', 'b'] },
    { name: 'the first up: no change', i: 0, step: -1, want: ['a', 'b', 'c'] },
    { name: 'the last down: no change', i: 2, step: 1, want: ['a', 'b', 'c'] },
  ])('moves an entry $name', ({ i, step, want }) => {
    expect(moved(list, i, step)).toEqual(want);
  });
});
