// The learning memory's writes: lessons (add, change, delete, promote) and
// cases (delete, import). The reads are the hooks of useLearning.ts.
import { patch, remove, send, sendText } from '../../api/client';
import type { CaseImport, Lesson, LessonPatch, LessonPromotion } from '../../api/types';

/** Add a manual lesson; a near-duplicate of a stored one answers that one, its count raised. */
export function createLesson(text: string): Promise<Lesson> {
  return send<Lesson>('/api/lessons', { text: text.trim() });
}

/** Change a lesson's text, or turn it on or off. */
export function updateLesson(id: number, change: LessonPatch): Promise<Lesson> {
  return patch<Lesson>(`/api/lessons/${id}`, change.text === undefined ? change : { ...change, text: change.text.trim() });
}

/** Remove a lesson. */
export function deleteLesson(id: number): Promise<null> {
  return remove(`/api/lessons/${id}`);
}

/** Promote a lesson into the persona's voice: the new persona version, and the lesson, now off (409: the voice is full). */
export function promoteLesson(id: number): Promise<LessonPromotion> {
  return send<LessonPromotion>(`/api/lessons/${id}/promote`);
}

/** Take a case out of the memory; the post and its history stay. */
export function deleteCase(id: number): Promise<null> {
  return remove(`/api/cases/${id}`);
}

/** Import past replies, one JSON object a line (413: more than 10,000 lines or 5 MB). */
export function importCases(ndjson: string): Promise<CaseImport> {
  return sendText<CaseImport>('/api/cases/import', ndjson, 'application/x-ndjson');
}
