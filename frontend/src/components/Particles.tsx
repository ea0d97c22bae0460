import type { CSSProperties } from 'react';

interface Props {
  count: number;
}

/**
 * Decorative embers rising behind the content. Positions come from the index,
 * so a render is always the same; the stylesheet hides them for visitors who
 * prefer reduced motion.
 */
export function Particles({ count }: Props) {
  const items = Array.from({ length: count }, (_, i) => i);
  return (
    <div className="particles" aria-hidden="true">
      {items.map((i) => (
        <span
          key={i}
          className="particle"
          style={
            {
              '--x': `${(i * 37 + 11) % 100}%`,
              '--delay': `${((i * 0.73) % 8).toFixed(2)}s`,
              '--duration': `${7 + ((i * 5) % 6)}s`,
              '--size': `${2 + ((i * 3) % 4)}px`,
            } as CSSProperties
          }
        />
      ))}
    </div>
  );
}
