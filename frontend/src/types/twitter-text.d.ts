// twitter-text v3 ships no types of its own. The counter imports its
// parseTweet module alone (the package's ES build, one default export per
// file), which is what this declares.
declare module 'twitter-text/dist/esm/parseTweet' {
  interface ParsedTweet {
    weightedLength: number;
    valid: boolean;
    permillage: number;
  }
  export default function parseTweet(text: string): ParsedTweet;
}
