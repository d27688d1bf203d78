import { COMMON_WORDS } from "./common-words-list.js";

/**
 * Whether `word` (folded) is a common English word: one of SCOWL's lists up to its "small" size, of words
 * shared by every spelling of English and of American and British ones (common-words-list.ts). Such a word
 * that no skill holds is more often a word the catalog lacks than a typing mistake: `meal`, `plants` and
 * `loaf` of requests about cooking and gardening were read as mean, plans and load, and pulled onto
 * statistics, planning and load-testing skills, and `tyre` would be read as type. So it is read as a word one
 * mistake away only when most of the request's best matches hold that word (`COMMON_WORD_SUPPORT`,
 * corrections.ts). A British spelling of a word the catalog spells the American way (`neighbour`, `colour`)
 * finds it as that spelling instead (english-spellings.ts), before any mistake is looked for.
 */
export function isCommonWord(word: string): boolean {
  return sortedWordsInclude(COMMON_WORDS, word);
}

/**
 * Whether `word` is one of `words`, sorted by UTF-16 code units with a space between two: a binary search
 * over the characters, each probe widened to the word it falls in, so that the list needs no array.
 */
export function sortedWordsInclude(words: string, word: string): boolean {
  // `low` is always where a word starts, and `high` just past a word's end or the text's.
  let low = 0;
  let high = words.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = words.lastIndexOf(" ", middle - 1) + 1;
    const space = words.indexOf(" ", middle);
    const end = space < 0 ? words.length : space;
    const found = words.slice(start, end);
    if (found === word) return true;
    if (found < word) low = end + 1;
    else high = start;
  }
  return false;
}
