/**
 * Where a post's images may load from: only the hosts of MEDIA_HOSTS (the
 * content security policy's img-src, `host`, `host:port` or `*.domain`),
 * over https. Any other address is shown as a link, never loaded.
 */

/** The host (with its port, if any) of an https address, lower-cased; "" for anything else. */
export function httpsHost(address: string): string {
  try {
    const u = new URL(address);
    return u.protocol === 'https:' ? u.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

/** Whether address is an https address on one of hosts (`host`, `host:port` or `*.domain`). */
export function loadsFrom(address: string, hosts: readonly string[]): boolean {
  const host = httpsHost(address);
  if (!host) return false;
  return hosts.some((h) => {
    const want = h.toLowerCase();
    if (want.startsWith('*.')) {
      return host.endsWith(want.slice(1)) && host.length > want.length - 1;
    }
    return host === want;
  });
}

/** The host a link card names: its address's host without a leading www.; "" when unreadable. */
export function linkHost(address: string): string {
  try {
    return new URL(address).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** What a card says of an image its author did not describe. */
export const NO_DESCRIPTION = 'No description';

/** The alt text of the n-th image (1-based), or a name saying it has none. */
export function imageLabel(alt: string, n: number, type = 'photo'): string {
  const trimmed = alt.trim();
  if (trimmed) return trimmed;
  const what = type === 'video' ? 'Video' : type === 'animated_gif' ? 'GIF' : 'Image';
  return `${what} ${n} without a description`;
}
