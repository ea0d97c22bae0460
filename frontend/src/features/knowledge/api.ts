// The knowledge base's calls: upload, enable, delete; the reads are SWR keys.
import { patch, remove, send } from '../../api/client';
import type { Document, KnowledgeRanking } from '../../api/types';

/** The list's SWR key. */
export const KNOWLEDGE_KEY = '/api/knowledge';

/** The search's SWR key for q, null for an empty one. */
export function searchKey(q: string): string | null {
  const t = q.trim();
  return t ? `/api/knowledge/search?q=${encodeURIComponent(t)}` : null;
}

/** How the search ranked its facts, in a few words: by embeddings, or by text and why. */
export function rankingLabel(r: KnowledgeRanking): string {
  if (r.by === 'embeddings') return 'Ranked by embeddings and text';
  return r.reason ? `Ranked by text alone: ${r.reason}` : 'Ranked by text alone';
}

/** The largest document the server takes, in bytes. */
export const MAX_DOCUMENT_BYTES = 1 << 20;

/** Why file cannot be uploaded, or null when it can. */
export function fileProblem(file: { name: string; size: number }): string | null {
  if (!/\.(md|txt|markdown)$/i.test(file.name)) return 'Only .md and .txt files';
  if (file.size > MAX_DOCUMENT_BYTES) return 'At most 1 MB per document';
  if (file.size === 0) return 'The file is empty';
  return null;
}

/** A file's title: its name without the extension. */
export function titleOf(name: string): string {
  return name.replace(/\.[^.]*$/, '').trim() || name;
}

/** Store a document; answers it, or throws an ApiError (413, 415, 400). */
export function uploadDocument(title: string, text: string): Promise<Document> {
  return send<Document>(KNOWLEDGE_KEY, { title, text });
}

/** Enable or disable a document. */
export function setEnabled(id: number, enabled: boolean): Promise<Document> {
  return patch<Document>(`${KNOWLEDGE_KEY}/${id}`, { enabled });
}

/** Remove a document and its chunks. */
export function deleteDocument(id: number): Promise<null> {
  return remove(`${KNOWLEDGE_KEY}/${id}`);
}
