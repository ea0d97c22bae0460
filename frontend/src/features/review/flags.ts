// The outbound check's flags on a draft (docs/api.md, "Flags"), as the
// review card names them.

/** The flag of a draft too like a recent persona post: shown, but approving needs no override. */
export const NEAR_DUPLICATE = 'near_duplicate';

const LABELS: Record<string, string> = {
  link: 'Link',
  foreign_mention: 'Foreign mention',
  placeholder: 'Placeholder',
  secret: 'Secret',
  [NEAR_DUPLICATE]: 'Near-duplicate',
};

const WHY: Record<string, string> = {
  link: 'a link',
  foreign_mention: 'an @mention of someone outside the conversation',
  placeholder: 'a leftover placeholder',
  secret: 'text that looks like a key or token',
  [NEAR_DUPLICATE]: 'words too like a recent post of the persona',
};

/** The card's label of a flag; an unknown flag is shown as sent, underscores as spaces. */
export function flagLabel(flag: string): string {
  return LABELS[flag] ?? flag.replace(/_/g, ' ');
}

/** Whether approving a text with these flags needs "Approve anyway". */
export function needsOverride(flags: readonly string[]): boolean {
  return flags.some((f) => f !== NEAR_DUPLICATE);
}

/** One sentence naming what the flags found, "" for none. */
export function flagSummary(flags: readonly string[]): string {
  const parts = flags.map((f) => WHY[f] ?? flagLabel(f));
  if (parts.length === 0) return '';
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `The draft holds ${list}.`;
}
