// twitter-text v3 ships no types of its own. Its CommonJS and ES builds both
// expose a single default object, which is what this declares.
declare module 'twitter-text' {
  interface ParsedTweet {
    weightedLength: number;
    valid: boolean;
    permillage: number;
  }
  const twitterText: {
    parseTweet(text: string): ParsedTweet;
  };
  export default twitterText;
}
