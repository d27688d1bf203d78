/**
 * The other English spellings of a word: British for American and American for British (`colour` and
 * `color`, `optimise` and `optimize`, `analyse` and `analyze`, `centre` and `center`, `licence` and
 * `license`, `catalogue` and `catalog`, `paediatric` and `pediatric`). A request word no skill holds is
 * read as one of these when a skill holds it (see `RequestWords` in request-terms.ts): the same word,
 * spelled as the catalog spells it, not a mistake.
 *
 * Rules on a word's letters, not a list of words, so that the words of skills (`tokenise`, `serialise`)
 * are covered as well as the common ones; a rule may make a word that is no word (`monitour`), which no
 * skill holds and so is never read. Each rule is a pattern anchored at the word's end or applied once, of
 * bounded length: it runs in time linear in the word's length. The few words that differ in their stem
 * rather than their ending (`grey` and `gray`, `plough` and `plow`) are listed ({@link WORD_PAIRS}).
 */

/** Endings after `our` (British) or `or` (American): `colourful`, `behavioural`, `neighbours`, `favourite`. */
const OUR_ENDINGS = "s|ed|ing|ful|fully|ite|ites|able|ably|al|ally|less|hood|hoods|ist|ists|ism|er|ers|y";
/** Endings after `ise`'s `is` or `ize`'s `iz`: `optimised`, `organisation`, `serialising`. */
const ISE_ENDINGS = "e|es|ed|er|ers|ing|ation|ations|ational|able";
/** Endings after `yse`'s `ys` or `yze`'s `yz`: `analysed`, `catalysing`. */
const YSE_ENDINGS = "e|es|ed|er|ers|ing";

type Rule = readonly [pattern: RegExp, replacement: string];

/** British spellings, each rule to its American one. */
const BRITISH_TO_AMERICAN: readonly Rule[] = [
  [new RegExp(`(?<=[a-z]{2})our(${OUR_ENDINGS})?$`), "or$1"],
  // A consonant before `ise` (optimise, realise), not a vowel (raise, noise, praise).
  [new RegExp(`(?<=[a-z]{2}[^aeiou])is(${ISE_ENDINGS})$`), "iz$1"],
  [new RegExp(`(?<=[a-z]{2})ys(${YSE_ENDINGS})$`), "yz$1"],
  [/(?<=[a-z]{2}[^aeiou])re(s?)$/, "er$1"],
  // `centre` and `metre` in their forms: centred, centring, metred.
  [/(?<=[a-z]{2}[^aeiou])r(ed|ing)$/, "er$1"],
  [/(?<=[a-z]{2})ence(s?)$/, "ense$1"],
  [/(?<=[a-z]{2})ogue(s?)$/, "og$1"],
  [/(?<=[a-z]{2})ogued$/, "oged"],
  [/(?<=[a-z]{2})mme(s?)$/, "m$1"],
  [/dgement(s?)$/, "dgment$1"],
  [/ae(?=[a-z]{2})/, "e"],
  [/oe(?=[a-z]{2})/, "e"],
];

/** American spellings, each rule to its British one. */
const AMERICAN_TO_BRITISH: readonly Rule[] = [
  [new RegExp(`(?<=[a-z]{2})or(${OUR_ENDINGS})?$`), "our$1"],
  [new RegExp(`(?<=[a-z]{2}[^aeiou])iz(${ISE_ENDINGS})$`), "is$1"],
  [new RegExp(`(?<=[a-z]{2})yz(${YSE_ENDINGS})$`), "ys$1"],
  [/(?<=[a-z]{2}[^aeiou])er(s?)$/, "re$1"],
  [/(?<=[a-z]{2}[^aeiou])er(ed|ing)$/, "r$1"],
  [/(?<=[a-z]{2})ense(s?)$/, "ence$1"],
  [/(?<=[a-z]{2})og(s?)$/, "ogue$1"],
  [/(?<=[a-z]{2})oged$/, "ogued"],
  [/dgment(s?)$/, "dgement$1"],
];

const RULES = [...BRITISH_TO_AMERICAN, ...AMERICAN_TO_BRITISH];

/**
 * Words whose British and American spellings differ in their stem, where no rule of endings reaches:
 * British first. Each is matched at the start of a word, so that its forms and compounds follow
 * (`greyscale` as grayscale, `ploughed` as plowed), and each either way.
 */
const WORD_PAIRS: readonly (readonly [british: string, american: string])[] = [
  ["grey", "gray"],
  ["plough", "plow"],
  ["mould", "mold"],
  ["smoulder", "smolder"],
  ["moustache", "mustache"],
  ["pyjama", "pajama"],
  ["aluminium", "aluminum"],
  ["sceptic", "skeptic"],
  ["jewellery", "jewelry"],
  ["artefact", "artifact"],
  ["ageing", "aging"],
  ["tyre", "tire"],
  ["kerb", "curb"],
  ["cheque", "check"],
  ["draught", "draft"],
  ["cosy", "cozy"],
];
/**
 * Whether any rule applies, in one pass: most words a search looks up here fit none, and trying each of
 * the rules in turn cost a new search some 2 of its 19 µs in process.
 */
const ANY_RULE = new RegExp(RULES.map(([pattern]) => `(?:${pattern.source})`).join("|"));

/** Words so short have no other spelling worth a look, and longer ones are no words. */
const SHORTEST = 4;
const LONGEST = 32;
const PLAIN_LETTERS = /^[a-z]+$/;

/**
 * The other spellings `word` (folded) may have in another variety of English, as far as its letters
 * tell: some are no words at all, and only one a skill holds should be read.
 */
export function otherSpellings(word: string): string[] {
  if (word.length < SHORTEST || word.length > LONGEST || !PLAIN_LETTERS.test(word)) return [];
  const spellings: string[] = [];
  for (const [british, american] of WORD_PAIRS) {
    if (word.startsWith(british)) spellings.push(american + word.slice(british.length));
    else if (word.startsWith(american)) spellings.push(british + word.slice(american.length));
  }
  if (!ANY_RULE.test(word)) return spellings;
  for (const [pattern, replacement] of RULES) {
    if (!pattern.test(word)) continue;
    const other = word.replace(pattern, replacement);
    if (other !== word) spellings.push(other);
  }
  return spellings;
}
