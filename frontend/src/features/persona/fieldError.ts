import type { ReactNode } from 'react';

/** What a field shows of the form's error: the message's node, aria-invalid and the message's id. */
export interface FieldError {
  node: ReactNode;
  invalid: true | undefined;
  errorId: string | undefined;
}

/** The error of a field, or of one entry of a list when row is given. */
export type ErrorFor = (field: string, row?: number) => FieldError;

/** The ids that describe an input: its hint or counter, and its error when it has one. */
export function describedBy(...parts: (string | undefined)[]): string | undefined {
  const joined = parts.filter(Boolean).join(' ');
  return joined || undefined;
}
