import useSWR from 'swr';
import type { History } from '../../api/types';

interface Props {
  postId: number;
}

/** The card's "Facts used": each knowledge chunk the draft's prompt held, with its document's title. */
export function FactsUsed({ postId }: Props) {
  const { data } = useSWR<Partial<Pick<History, 'facts'>>>(`/api/posts/${postId}/history`);
  const facts = data?.facts ?? [];
  if (facts.length === 0) return null;
  return (
    <details className="facts-used" data-testid="facts-used">
      <summary>Facts used ({facts.length})</summary>
      <ul>
        {facts.map((f) => (
          <li key={f.chunk_id} data-testid="fact-used">
            <p className="facts-used-title">{f.title}</p>
            <p className="facts-used-text">{f.text}</p>
          </li>
        ))}
      </ul>
    </details>
  );
}
