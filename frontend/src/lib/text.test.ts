import { describe, expect, it } from 'vitest';
import { preview, PREVIEW_LENGTH } from './text';

describe('preview', () => {
  it('keeps short texts whole', () => {
    expect(preview('hello')).toBe('hello');
    expect(preview('x'.repeat(PREVIEW_LENGTH))).toBe('x'.repeat(100));
  });

  it('cuts at 100 characters', () => {
    const cut = preview('y'.repeat(150));
    expect(cut).toBe(`${'y'.repeat(100)}...`);
  });

  it('never splits an emoji', () => {
    const text = '😀'.repeat(120);
    expect(preview(text)).toBe(`${'😀'.repeat(100)}...`);
  });

  it('gives an empty string for missing text', () => {
    expect(preview(undefined)).toBe('');
    expect(preview(null)).toBe('');
  });
});
