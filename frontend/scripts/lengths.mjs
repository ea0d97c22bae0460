// Regenerates pkg/twittertext/testdata/lengths.json: every sandbox corpus post and
// offline writer line, and the edge cases below, with its weighted length
// and validity as twitter-text counts them.
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

// Where the server's port of twitter-text's rules could go wrong: links
// (TLDs, labels, IDN, schemes, t.co, paths, what may precede a link), emoji
// (text-default symbols, FE0E/FE0F, skin tones, newer ZWJ sequences) and
// the characters twitter-text refuses.
const label63 = 'a'.repeat(63);
const edgeCases = [
  `http://${label63}.com`,
  `http://${label63}a.com`,
  `${label63}.com and ${'b'.repeat(64)}.com`,
  `https://${'a'.repeat(4090)}.com`,
  'x.co x.com x.comx example.community example.co.uk',
  'EXAMPLE.COM Example.Org HTTP://EXAMPLE.NET/PATH',
  'www.example.org/x?q=1#frag and example.com?q=1 and example.com:8080 and example.com:8080/p',
  'https://example.com/path_(with)_parens) and https://example.com/(a(b)c)',
  'https://example.com/@user/ https://example.com/a. https://example.com/a! https://example.com/a?',
  'a@b.com @user.com $example.com #example.com -example.com _example.com .example.com /example.com',
  'example.com.foo.com foo-.com -foo.com foo_bar.example.com foo.bar_baz.com',
  'http://t.co/abc123?x=1 https://t.co/abcdefghijklmnopqrstuvwxyzabcdefghijklmnop https://t.co/abc/def',
  'http://例え.テスト http://foobar.پاکستان/ http://xn--fsqu00a.xn--3lr804guic http://xn--zz.com',
  'xn--fsqu00a.com and müller.de and müller-straße.example.com/weg and españa.com.рф/ruta',
  'http://foo。bar.com http://ドメイン名例.jp http://日本.香港 http://example.ΕΛ http://пример.РФ',
  'faſt.com ſ.com example.ſe exampleſ.com KELVIN.com K.com',
  'ok.com:abc go.com: see.com/ end.co',
  '\u202ahttp://example.com\u202c \u2066example.com\u2069 \u200fexample.org',
  'ABC\u202a\uffffABC\ufffe \ufeff',
  '☺ ☺️ ☺︎ ✌ ✌️ ✌︎ ✌🏽 ⛹️‍♀️ ⛹🏿‍♂️ 🕴︎ 🕴 ❤ ❤️ ❤︎ © ©️ ® ™ ™️ ‼︎ ‼',
  '#⃣ #️⃣ 1⃣ 1️⃣ 🔟 *️⃣ 🇫🇷🇩🇪 🇺 🇿🇿 🏴󠁧󠁢󠁳󠁣󠁴󠁿 🏳️‍🌈 🏴‍☠️ 👁‍🗨 👁️‍🗨️',
  '❤️‍🔥 😮‍💨 🐈‍⬛ 🧑‍💻 🫠 🫶🏽 👩🏽‍🤝‍👩🏻 🧔‍♀️ \ufe0f\ufe0f \ufe0e',
  'see foo.com.ドメイン.jp/path here, foo.com.𝒜𝒜.jp/p and foo.com.🔥.jp/p',
  'split surrogates: 😈.example.com 🇷.xn--p1ai.xn--p1ai @uk😈.みんなfoo.co.uk/x 𝒜-b.com',
  '😈https://example.com😈 🔥example.com 1⃣example.com ©️example.com',
  'e\u0301 A\u030a Ω \u212b \u2126 ﬁ ｆｕｌｌ',
];
edgeCases.forEach((t) => texts.add(t));

// And random mixes of those fragments, from a fixed seed so that the file
// only changes when twitter-text does.
const fragments = [
  'http://', 'https://', 'HTTPS://', 't.co/abc', 'www.', 'example', 'foo', 'b1', 'xn--', 'xn--p1ai', '.', '.', '.',
  'com', 'co.uk/', 'jp', 'COM', '.рф', 'пример', '.みんな', '日本', 'پاکستان', 'ſ', 'é', 'ß', '/', 'path', '?', 'q=1',
  '&', '#', '(', ')', ':', '8080', '@', '$', '-', '_', '~', '!', ',', "'", '"', ' ', ' ', ' ', '\n',
  '🔥', '😈', '❤', '☺', '✌', '🕴', '\ufe0f', '\ufe0e', '\u200d', '🏽', '👨', '👩', '🇫', '🇷', '1', '*', '\u20e3',
  '©', '™', '🏴', '\u{E0067}', '\u{E007F}', '\u202a', '\u2066', '\ufeff', '\uffff', '—', '𝒜', '。', 'ｆ',
  'e\u0301', '\u3000', 'community', 'ΕΛ',
];
let seed = 666;
const random = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
for (let i = 0; i < 300; i++) {
  let text = '';
  for (let j = 1 + random(25); j > 0; j--) text += fragments[random(fragments.length)];
  texts.add(text);
}

const out = [...texts].map((text) => {
  const { weightedLength, valid } = twitterText.parseTweet(text);
  return { text, want: weightedLength, valid };
});
writeFileSync(repo('pkg/twittertext/testdata/lengths.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`${out.length} texts`);
