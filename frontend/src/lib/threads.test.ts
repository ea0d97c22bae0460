import { describe, expect, it } from 'vitest';
import { isLogsPage, logsOffset, normalizeThread, threadText } from './threads';

describe('logsOffset', () => {
  it('is the page index times 15', () => {
    expect(logsOffset(0)).toBe(0);
    expect(logsOffset(1)).toBe(15);
    expect(logsOffset(4)).toBe(60);
    expect(logsOffset(-1)).toBe(0);
  });
});

describe('normalizeThread', () => {
  it('keeps the messages of a thread', () => {
    const t = normalizeThread(
      {
        id: 7,
        type: 'MORTAL_INTERACTION',
        latestTimestamp: '2026-11-22T04:00:00Z',
        messages: [
          {
            id: 42,
            original_post_text: 'hello',
            original_post_user: 'Mortal',
            author_username: 'mortal',
            proposed_response: 'burn',
            category: 'pride',
            timestamp: '2026-11-22T04:00:00Z',
            temperature: 0.9,
            presence_penalty: 0.1,
            frequency_penalty: 0.2,
          },
        ],
      },
      0,
    );
    expect(t.id).toBe('7');
    expect(t.timestamp).toBe('2026-11-22T04:00:00Z');
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toMatchObject({ id: '42', response: 'burn', temperature: 0.9, presencePenalty: 0.1, frequencyPenalty: 0.2 });
    expect(threadText(t)).toBe('hello');
  });

  it('treats a thread without messages as one message', () => {
    const t = normalizeThread({ id: 3, proposed_response: 'I broadcast', timestamp: '2026-11-22T05:00:00Z' }, 0);
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0].response).toBe('I broadcast');
    expect(t.timestamp).toBe('2026-11-22T05:00:00Z');
    expect(threadText(t)).toBe('I broadcast');
  });

  it('defaults the type to MORTAL_INTERACTION and sampling to 0.3', () => {
    const t = normalizeThread({ messages: [{}] }, 4);
    expect(t.type).toBe('MORTAL_INTERACTION');
    expect(t.id).toBe('thread-4');
    expect(t.messages[0]).toMatchObject({ temperature: 0.3, presencePenalty: 0.3, frequencyPenalty: 0.3 });
  });

  it('keeps CONSCIOUSNESS_BROADCAST', () => {
    expect(normalizeThread({ type: 'CONSCIOUSNESS_BROADCAST' }, 0).type).toBe('CONSCIOUSNESS_BROADCAST');
  });
});

describe('isLogsPage', () => {
  it('accepts a threads array', () => {
    expect(isLogsPage({ threads: [], pagination: { hasMore: false } })).toBe(true);
    expect(isLogsPage({ threads: [{ id: 1 }] })).toBe(true);
  });

  it('rejects anything else', () => {
    expect(isLogsPage(null)).toBe(false);
    expect(isLogsPage({})).toBe(false);
    expect(isLogsPage({ threads: 'nope' })).toBe(false);
    expect(isLogsPage({ threads: [null] })).toBe(false);
    expect(isLogsPage([])).toBe(false);
  });
});
