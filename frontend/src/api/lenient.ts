/**
 * T with every field, at any depth, possibly missing: how a page reads an
 * answer whose missing values the spec tells it to default (the home figures
 * to 0, the log samplings to 0.3, a thread without messages).
 */
export type Lenient<T> = T extends (infer E)[]
  ? Lenient<E>[]
  : T extends object
    ? { [K in keyof T]?: Lenient<T[K]> }
    : T;
