/** How the site names a platform: "X", "Bluesky", "Sandbox"; an unknown name as it is. */
export function platformLabel(name: string): string {
  switch (name) {
    case 'x':
      return 'X';
    case 'bluesky':
      return 'Bluesky';
    case 'sandbox':
      return 'Sandbox';
    default:
      return name;
  }
}
