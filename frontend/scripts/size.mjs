// Reports the gzip size of the JavaScript the home page loads on first visit:
// the scripts and module preloads that dist/index.html names (lazy chunks of
// the other pages are not among them). Run after `npm run build`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const refs = [
  ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
  ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
].map((m) => m[1]);

let raw = 0;
let gz = 0;
for (const ref of new Set(refs)) {
  const body = readFileSync(join(dist, ref.replace(/^\//, '')));
  const size = gzipSync(body, { level: 9 }).length;
  raw += body.length;
  gz += size;
  console.log(`${ref}  ${(body.length / 1024).toFixed(1)} KiB, gzip ${(size / 1024).toFixed(1)} KiB`);
}
console.log(`home page JS: ${(raw / 1024).toFixed(1)} KiB, gzip ${(gz / 1024).toFixed(1)} KiB (${gz} bytes)`);
