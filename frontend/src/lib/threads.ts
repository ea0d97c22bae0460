import type { Lenient } from '../api/lenient';
import type { LogMessage, LogsPage, LogThread, ThreadType } from '../api/types';
import { DEFAULT_SAMPLING, LOGS_PAGE_SIZE } from './constants';

/**
 * A thread as the terminal accepts it. The server always sends the full
 * shape, but the spec has the terminal default what is missing: no messages
 * (the thread itself is the one message, so it may carry a message's fields),
 * no type, no samplings.
 */
export type RawThread = Lenient<LogThread> & Lenient<LogMessage>;

/** A logs answer as the terminal accepts it (see RawThread). */
export type RawLogsPage = Lenient<LogsPage> & { threads: RawThread[] };

export interface Message {
  id: string;
  authorName: string;
  authorUsername: string;
  originalText: string;
  response: string;
  category: string;
  timestamp: unknown;
  temperature: number;
  presencePenalty: number;
  frequencyPenalty: number;
}

export interface Thread {
  id: string;
  type: ThreadType;
  timestamp: unknown;
  messages: Message[];
}

export function logsOffset(pageIndex: number): number {
  return Math.max(0, pageIndex) * LOGS_PAGE_SIZE;
}

function sampling(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : DEFAULT_SAMPLING;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function normalizeMessage(m: Lenient<LogMessage>, key: string): Message {
  return {
    id: m.id === undefined || m.id === null ? key : String(m.id),
    authorName: str(m.original_post_user),
    authorUsername: str(m.author_username),
    originalText: str(m.original_post_text),
    response: str(m.proposed_response),
    category: str(m.category),
    timestamp: m.timestamp,
    temperature: sampling(m.temperature),
    presencePenalty: sampling(m.presence_penalty),
    frequencyPenalty: sampling(m.frequency_penalty),
  };
}

/**
 * A thread in the form the terminal shows: its messages (the thread itself
 * when it has none), its latest timestamp, and its type (MORTAL_INTERACTION
 * unless it says CONSCIOUSNESS_BROADCAST).
 */
export function normalizeThread(raw: RawThread, index: number): Thread {
  const id = raw.id === undefined || raw.id === null ? `thread-${index}` : String(raw.id);
  const list = Array.isArray(raw.messages) ? raw.messages : [raw];
  return {
    id,
    type: raw.type === 'CONSCIOUSNESS_BROADCAST' ? 'CONSCIOUSNESS_BROADCAST' : 'MORTAL_INTERACTION',
    timestamp: raw.latestTimestamp ?? raw.timestamp,
    messages: list.map((m, i) => normalizeMessage(m ?? {}, `${id}-${i}`)),
  };
}

/** The text a thread is listed by: the mortal's post, or the persona's broadcast. */
export function threadText(thread: Thread): string {
  const first = thread.messages[0];
  if (!first) return '';
  return first.originalText || first.response;
}

/** Whether an answer of the logs call has the shape the terminal needs. */
export function isLogsPage(data: unknown): data is RawLogsPage {
  if (typeof data !== 'object' || data === null) return false;
  const threads = (data as { threads?: unknown }).threads;
  return Array.isArray(threads) && threads.every((t) => typeof t === 'object' && t !== null);
}
