import { describe, expect, it } from 'vitest';
import { httpsHost, imageLabel, linkHost, loadsFrom } from './media';

describe('loadsFrom', () => {
  const hosts = ['pbs.twimg.com', 'cdn.bsky.app', '127.0.0.1:8443', '*.cdn.example'];
  it.each([
    ['https://pbs.twimg.com/media/a.jpg', true],
    ['https://PBS.twimg.com/media/a.jpg', true],
    ['https://127.0.0.1:8443/goat.png', true],
    ['https://127.0.0.1:9999/goat.png', false],
    ['https://img.cdn.example/a.png', true],
    ['https://cdn.example/a.png', false],
    ['http://pbs.twimg.com/media/a.jpg', false],
    ['https://pbs.twimg.com.evil.example/a.jpg', false],
    ['https://evil.example/?pbs.twimg.com', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (address, want) => {
    expect(loadsFrom(address, hosts)).toBe(want);
  });
  it('loads nothing without hosts', () => {
    expect(loadsFrom('https://pbs.twimg.com/a.jpg', [])).toBe(false);
  });
});

describe('hosts and labels', () => {
  it('names hosts', () => {
    expect(httpsHost('https://cdn.bsky.app:443/x')).toBe('cdn.bsky.app');
    expect(httpsHost('http://cdn.bsky.app/x')).toBe('');
    expect(linkHost('https://www.pit.example/hours')).toBe('pit.example');
    expect(linkHost('::')).toBe('');
  });
  it('labels images', () => {
    expect(imageLabel(' a goat ', 1)).toBe('a goat');
    expect(imageLabel('', 2)).toBe('Image 2 without a description');
    expect(imageLabel('', 1, 'video')).toBe('Video 1 without a description');
  });
});
