// Regenerates pkg/post/testdata/lengths.json: every sandbox corpus post and
// offline writer line with its weighted length as twitter-text counts it.
// Run from frontend/: node scripts/lengths.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import twitterText from 'twitter-text';

const repo = (p) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const texts = new Set();
const walk = (v) => {
  if (typeof v === 'string') {
    if (v.length > 20) texts.add(v.replaceAll('@{persona}', '@infernal_ai'));
  } else if (Array.isArray(v)) v.forEach(walk);
  else if (v && typeof v === 'object') Object.values(v).forEach(walk);
};
walk(JSON.parse(readFileSync(repo('pkg/platform/sandbox/corpus/corpus.json'), 'utf8')));
for (const line of readFileSync(repo('pkg/writer/offline/lines.txt'), 'utf8').split('\n')) {
  if (line.length > 20 && !line.startsWith('#')) texts.add(line);
}
const out = [...texts].map((text) => ({ text, want: twitterText.parseTweet(text).weightedLength }));
writeFileSync(repo('pkg/post/testdata/lengths.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`${out.length} texts`);
