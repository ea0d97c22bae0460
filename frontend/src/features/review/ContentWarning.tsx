import { CONTENT_WARNING_LABEL } from './original';

interface Props {
  /** The warning the author put over the post; "" shows nothing. */
  text: string;
}

/** The content warning over the original post, on its own labelled line above the post's text. */
export function ContentWarning({ text }: Props) {
  if (!text.trim()) return null;
  return (
    <p className="review-cw" data-testid="content-warning">
      <span className="review-cw-label">{CONTENT_WARNING_LABEL}</span> {text}
    </p>
  );
}
