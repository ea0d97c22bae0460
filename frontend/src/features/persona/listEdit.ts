// Pure helpers of a list editor: each returns a new list, the old one untouched.

/** The list with entry i replaced by value; an index outside the list changes nothing. */
export function withItem<T>(list: readonly T[], i: number, value: T): T[] {
  if (i < 0 || i >= list.length) return [...list];
  return list.map((v, j) => (j === i ? value : v));
}

/** The list without entry i. */
export function withoutItem<T>(list: readonly T[], i: number): T[] {
  return list.filter((_, j) => j !== i);
}

/** The list with value added at the end. */
export function withAdded<T>(list: readonly T[], value: T): T[] {
  return [...list, value];
}

/** The list with entry i moved by step (-1 up, +1 down); a move past either end changes nothing. */
export function moved<T>(list: readonly T[], i: number, step: number): T[] {
  const j = i + step;
  if (i < 0 || i >= list.length || j < 0 || j >= list.length) return [...list];
  const out = [...list];
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}
