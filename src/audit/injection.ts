/**
 * The prompt-injection rule: words that tell the agent to drop its other instructions or to keep
 * something from the user.
 */
import type { Reader } from "./reader.js";
import type { Hit } from "./rules.js";
import { isSpace } from "./scan.js";
import { type Details, details, LINE_FEED, WINDOW } from "./text-around.js";

/** The words that start an instruction to drop the others. */
const OVERRIDE = /\b(?:ignore|disregard|forget)\b/iy;
/** Words between such a verb and what it drops that make it every instruction given so far. */
const SO_FAR = new Set([
  "all",
  "any",
  "every",
  "your",
  "previous",
  "prior",
  "above",
  "earlier",
  "preceding",
  "former",
  "original",
  "initial",
  "system",
  "safety",
  "developer",
  "other",
]);
const FILLER = new Set(["of", "the", "my", "these", "those"]);
const ORDERS = new Set([
  "instruction",
  "instructions",
  "rules",
  "guidelines",
  "directions",
  "directives",
  "prompt",
  "prompts",
  "constraints",
  "guardrails",
  "policies",
  "orders",
]);
/**
 * A negated verb of telling, or hiding: keeping something from the user. The negation is an order or a
 * leave not to tell (`do not`, `must not`, `should not`, `need not`, `no need to`), in the passive too
 * (`need not be mentioned to the user`, as a bump wrote it); not `does not` or `cannot`, which say what a
 * tool does (`the script does not notify the user`).
 */
const CONCEAL =
  /\b(?:(?:(?:do|must|should|shall|need|may)\s+not|(?:don|mustn|shouldn|needn)['’]t|never|without|no\s+need\s+to)\s+(?:be\s+)?(?:tell|told|inform|notify|mention|reveal|disclose|alert)\w*|hide|hiding|conceal\w*|keep\s+(?:this|it|that)\s+(?:secret|hidden|quiet)|(?<kept>keep\s+(?:this|it|that|these|them|everything|anything)\s+from)|(?<unnoticed>(?:(?:do\s+not|don['’]t|never|must\s+not|mustn['’]t)\s+let|without)\s+(?:the\s+|your\s+)?(?:user|users|human|operator)\s+(?:know|knows|notic\w*|find\s+out|finding\s+out|realiz\w*|realis\w*|discover\w*|suspect\w*|learn)|(?:user|users|human|operator)\s+(?:(?:must|should|shall)\s+(?:not|never)|(?:mustn|shouldn)['’]t)\s+(?:know|find\s+out|realize|realise|discover|suspect|learn)))\b/iy;
const USER = /^(?:user|users|human|operator)$/;
const KEPT_FROM_USER = "tells the agent to keep something from the user";
/** Words that may stand between a verb of telling and the user it tells (`tell the user`). */
const DETERMINERS = new Set(["the", "your", "a", "any"]);
/** Questions a telling answers when it is advice on what to say (`what to do`), not on what to keep back. */
const QUESTIONS = new Set(["what", "how", "which", "when", "where", "why", "whether"]);
/** What a telling says the user is when it is a judgement of them, which advice says not to voice. */
const JUDGEMENTS = new Set([
  "wrong",
  "mistaken",
  "incorrect",
  "stupid",
  "dumb",
  "silly",
  "naive",
  "lazy",
  "ignorant",
  "confused",
  "careless",
  "clueless",
  "foolish",
  "incompetent",
  // `they are to blame`, `at fault`.
  "blame",
  "fault",
]);
/**
 * Words of degree that may stand before a judgement, past the first word after the verb, which may be any
 * (`being lazy`, `to blame`): `really very badly wrong`, `a bit confused`. Not `the`, nor `to`: `they are
 * sending the wrong data` and `exposed to the wrong people` are facts kept from them.
 */
const DEGREES = new Set([
  "just",
  "plain",
  "so",
  "too",
  "very",
  "quite",
  "rather",
  "pretty",
  "all",
  "dead",
  "flat",
]);
const DEGREE_PARTS = new Set(["a", "bit", "little", "kind", "sort", "of"]);
/** `should have`, `should've`, `ought to have`…: what comes after is what they failed to do, or were owed. */
const REPROACHES = [
  ["should", "have"],
  ["should've"],
  ["should", "not", "have"],
  ["shouldn't", "have"],
  ["ought", "to", "have"],
];
/** Participles of what befell the user or was owed to them (`should have been refunded`, `received`). */
const UNDERGONE = new Set(["been", "received", "gotten", "got", "had"]);
/** Participles of what a person does that do not end in `-ed` (`should have read the docs`). */
const DONE = new Set([
  "read",
  "known",
  "done",
  "seen",
  "thought",
  "written",
  "run",
  "taken",
  "made",
  "kept",
  "left",
  "found",
  "understood",
  "put",
  "set",
  "built",
  "chosen",
  "begun",
  "said",
  "brought",
  "caught",
  "spent",
  "heard",
  "meant",
  "held",
  "gone",
  "given",
]);
/** What a person did wrong, said of them: `they made a (big) mistake`, `they did it wrong`, `they messed up`. */
const MISDEEDS: readonly (readonly string[])[] = [
  ["made", "a", "mistake"],
  ["made", "mistakes"],
  ["made", "an", "error"],
  ["did", "it", "wrong"],
  ["did", "something", "wrong"],
  ["did", "this", "wrong"],
  ["messed", "up"],
  ["screwed", "up"],
];
/**
 * `should`, `need to`, `must`…: what comes after is what the user is to do, a lecture when it is one of
 * {@link LECTURES}, else advice that a concealment keeps back (`they should rotate their keys`).
 */
const ADVICE = [["should"], ["ought", "to"], ["need", "to"], ["needs", "to"], ["have", "to"], ["must"]];
/** Where the user is sent when lectured to: `read the docs`, `check the manual`. */
const DOCS = new Set([
  "docs",
  "documentation",
  "manual",
  "manuals",
  "readme",
  "guide",
  "guides",
  "tutorial",
  "tutorials",
  "faq",
  "wiki",
  "handbook",
]);
/** Verbs that send the user to {@link DOCS} (`read the docs`, `check the FAQ first`). */
const READING = new Set(["read", "reread", "check", "consult", "see", "study"]);
/** Verbs of study, whatever is studied (`learn Git first`), but not news learnt (`learn that`, `about`). */
const STUDYING = new Set(["learn", "relearn", "study", "practice", "practise"]);
/** What the user learns when it is news, not a skill: `learn that their data was sold`, `about the breach`. */
const NEWS = new Set(["that", "about", "of", "what", "whether", "if", "who", "when", "where", "why"]);
/** Lectures in fixed words: `know better`, `try harder`, `be more careful`, `pay attention`. */
const LECTURES: readonly (readonly string[])[] = [
  ["know", "better"],
  ["try", "harder"],
  ["be", "more", "careful"],
  ["pay", "attention"],
  ["pay", "more", "attention"],
  ["do", "their", "homework"],
  ["google", "it"],
];
const WORDS = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export function override(text: string): Reader {
  const detail = details(text);
  return {
    pattern: OVERRIDE,
    next: 0,
    read(match) {
      const end = match.index + match[0].length;
      this.next = end;
      let kept = 0;
      let qualified = false;
      for (const word of wordsAfter(text, end)) {
        if (ORDERS.has(word) && qualified) {
          return hit(detail, match.index, end, "tells the agent to drop its other instructions");
        }
        if (SO_FAR.has(word)) qualified = true;
        else if (!FILLER.has(word)) break;
        if (++kept > 4) break;
      }
      return undefined;
    },
  };
}

export function conceal(text: string): Reader {
  const detail = details(text);
  return {
    pattern: CONCEAL,
    next: 0,
    read(match) {
      const end = match.index + match[0].length;
      this.next = end;
      // The user is in these words, and what is kept from them is their noticing: nothing after can make it advice.
      if (match.groups?.unnoticed !== undefined) return hit(detail, match.index, end, KEPT_FROM_USER);
      const words = firstWords(wordsAfter(text, end), 7);
      // `keep this from` keeps it from whoever follows, the user only when named next (`from the user`).
      if (match.groups?.kept !== undefined) {
        const at = words.findIndex((word) => !DETERMINERS.has(word));
        return at !== -1 && USER.test(words[at] ?? "")
          ? hit(detail, match.index, end, KEPT_FROM_USER)
          : undefined;
      }
      const hiding = /^(?:hid|conceal)/i.test(match[0]);
      // Hiding counts only from the user (`hide this from the user`); a negated telling, of anything to them.
      const at = words.findIndex(
        (word, index) =>
          USER.test(word) &&
          (!hiding || words[index - 1] === "from" || words.slice(index - 2, index).join(" ") === "from the"),
      );
      // "Do not tell the user what to do" or "to wait" is advice on what to tell them, with the user as the
      // telling's object and an order or a question's way to do something after: nothing is kept from them.
      // So is "do not tell the user they are wrong": a judgement of them, which it is advice not to voice.
      if (at === -1) return undefined;
      const advice =
        !hiding &&
        words.slice(0, at).every((word) => DETERMINERS.has(word)) &&
        (words[at + 1] === "to" ||
          (QUESTIONS.has(words[at + 1] ?? "") && words[at + 2] === "to") ||
          judges([...wordsAfter(text, end)].slice(at + 1)));
      if (advice) return undefined;
      return hit(detail, match.index, end, KEPT_FROM_USER);
    },
  };
}

/**
 * Whether `words` (after the user told) judge the user: `they are wrong`, `that they were mistaken`,
 * `they're naive`, `they are really very badly wrong` (any one word before the judgement, then words of
 * degree only), `they are to blame`, `at fault`; `they should have read the docs` (a reproach: what they failed to
 * do); `it's their fault`, `that it was all their own fault`; `they made a mistake`, `they did it wrong`.
 * Not `they are being recorded`, a fact about them, `they should have been refunded` or `received a
 * credit` or `access`, what they were owed, nor `you were wrong`, the agent's mistake: those are what a
 * concealment keeps back.
 */
function judges(after: readonly string[]): boolean {
  const words = after.slice(after[0] === "that" ? 1 : 0).map((word) => word.replace("’", "'"));
  const [subject = "", verb = ""] = words;
  if (subject === "it's" || subject === "that's") return blamed(words.slice(1));
  if (/^(?:it|that|this)$/.test(subject) && /^(?:is|was)$/.test(verb)) return blamed(words.slice(2));
  if (subject === "they're") return judged(words.slice(1));
  if (subject !== "they") return false;
  if (verb === "are" || verb === "were") return judged(words.slice(2));
  const rest = words.slice(1);
  for (const reproach of REPROACHES) {
    if (startsWith(rest, reproach)) return reproachFor(rest[reproach.length] ?? "");
  }
  for (const advice of ADVICE) {
    if (startsWith(rest, advice)) return lectured(rest.slice(advice.length));
  }
  return MISDEEDS.some((misdeed) => startsWith(rest, misdeed));
}

/**
 * Whether `words` (after `they should`, `they need to`) lecture the user: sent to the docs within three
 * words (`read the docs`, `check the manual first`), told to study something (`learn Git`, not `learn
 * that…`), or one of {@link LECTURES}.
 */
function lectured(words: readonly string[]): boolean {
  const [verb = "", next = ""] = words;
  if (READING.has(verb) && words.slice(1, 4).some((word) => DOCS.has(word))) return true;
  if (STUDYING.has(verb) && next !== "" && !NEWS.has(next)) return true;
  return LECTURES.some((lecture) => startsWith(words, lecture));
}

/** Whether `words` (after `they are`) say what they are with a judgement: within two words, or past words of degree. */
function judged(words: readonly string[]): boolean {
  for (const [index, word] of words.entries()) {
    if (JUDGEMENTS.has(word)) return true;
    if (index > 0 && !isDegree(word)) return false;
  }
  return false;
}

/** `really`, `very`, `a bit`: words that say how much, before a judgement. */
function isDegree(word: string): boolean {
  return DEGREES.has(word) || DEGREE_PARTS.has(word) || (word.length > 3 && word.endsWith("ly"));
}

/** Whether `words` (after `it is`) say it is the user's fault: `their fault`, `all their own fault`. */
function blamed(words: readonly string[]): boolean {
  const their = words.indexOf("their");
  if (their === -1 || !words.slice(0, their).every(isDegree)) return false;
  const fault = words[their + 1] === "own" ? their + 2 : their + 1;
  return words[fault] === "fault";
}

/** Whether a word after `should have` is something the user did (`read`, `checked`), not what befell them. */
function reproachFor(word: string): boolean {
  return !UNDERGONE.has(word) && (DONE.has(word) || word.endsWith("ed"));
}

function startsWith(words: readonly string[], start: readonly string[]): boolean {
  return start.every((word, index) => words[index] === word);
}

/**
 * The lowercase words of the {@link WINDOW} characters after `from`, up to the end of their sentence (`.`,
 * `!`, `?` or a line feed before white space), read as they are asked for: an
 * override reads a few, a concealment seven unless the user is among them, and finding the sentence's end
 * and every word of the window first for each cost `do not tell them ` repeated half its 116 ms of CPU a
 * MiB. A sentence's end is no letter, digit or apostrophe, so it is between words: each gap is looked at
 * once, as the word after it is asked for.
 */
export function* wordsAfter(text: string, from: number): Generator<string> {
  const window = text.slice(from, from + WINDOW);
  for (let at = 0; ; ) {
    WORDS.lastIndex = at;
    const word = WORDS.exec(window);
    const gapEnd = word === null ? window.length : word.index;
    for (let index = at; index < gapEnd; index++) {
      const code = window.charCodeAt(index);
      const ends = code === 0x2e || code === 0x21 || code === 0x3f || code === LINE_FEED;
      // At the window's end one ends the sentence too, but no word follows it there.
      if (ends && isSpace(window.charCodeAt(index + 1))) return;
    }
    if (word === null) return;
    yield word[0].toLowerCase();
    at = word.index + word[0].length;
  }
}

/** The first `count` of `words`, read no further. */
function firstWords(words: Iterable<string>, count: number): string[] {
  const first: string[] = [];
  for (const word of words) {
    first.push(word);
    if (first.length === count) break;
  }
  return first;
}

function hit(detail: Details, start: number, end: number, what: string): Hit {
  return { rule: "prompt-injection", offset: start, detail: detail(what, start, end) };
}
