// The package ships no types; it exports one function (CommonJS `module.exports`).
declare module "wink-porter2-stemmer" {
  /** Porter2 (Snowball English) stem of a lowercase word. */
  const stem: (word: string) => string;
  export default stem;
}
