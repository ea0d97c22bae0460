import { describe, expect, it } from 'vitest';
import { fileProblem, rankingLabel, searchKey, titleOf } from './api';

describe('fileProblem', () => {
  it.each([
    { name: 'hours.md', size: 10, want: null },
    { name: 'NOTES.TXT', size: 10, want: null },
    { name: 'photo.png', size: 10, want: 'Only .md and .txt files' },
    { name: 'big.md', size: (1 << 20) + 1, want: 'At most 1 MB per document' },
    { name: 'empty.txt', size: 0, want: 'The file is empty' },
  ])('$name of $size bytes', ({ name, size, want }) => {
    expect(fileProblem({ name, size })).toBe(want);
  });
});

describe('titleOf and searchKey', () => {
  it('drops the extension', () => {
    expect(titleOf('Opening hours.md')).toBe('Opening hours');
  });
  it('encodes the query, and asks nothing for a blank one', () => {
    expect(searchKey(' pit & hours ')).toBe('/api/knowledge/search?q=pit%20%26%20hours');
    expect(searchKey('  ')).toBeNull();
  });
});

describe('rankingLabel', () => {
  it.each([
    { by: 'embeddings' as const, reason: '', want: 'Ranked by embeddings and text' },
    { by: 'text' as const, reason: 'EMBEDDINGS_MODEL is not set', want: 'Ranked by text alone: EMBEDDINGS_MODEL is not set' },
    { by: 'text' as const, reason: '', want: 'Ranked by text alone' },
  ])('$by ($reason)', ({ by, reason, want }) => {
    expect(rankingLabel({ by, reason })).toBe(want);
  });
});
