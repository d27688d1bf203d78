import { excerpt, quoted, visible } from "../shared/index.js";
import { MAX_NESTING, TOO_DEEP } from "./nesting.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * What the text of a message holds that refuses it before the SDK reads it: arrays and objects nested
 * deeper than MAX_NESTING, or a key that one object holds twice, with the keys and array indexes from the
 * text's top to that object (empty for the top); the key as JSON.parse reads it (`"\u0069d"` is `id`).
 */
export type TextProblem =
  | { readonly kind: "too deep" }
  | { readonly kind: "repeated key"; readonly key: string; readonly path: readonly (string | number)[] };

const TOO_DEEP_PROBLEM: TextProblem = { kind: "too deep" };

/** One object or array the scan is inside: an object's keys so far, or an array's member index. */
interface Container {
  /**
   * An object's keys so far, while few (see FEW_KEYS) and without an escape: the offsets of each one's
   * opening and closing quote. Compared byte by byte, they cost no string each.
   */
  quotes: [number, number][] | undefined;
  /** An object's keys so far, decoded, once one holds an escape or they are many; then `quotes` is dropped. */
  decoded: Set<string> | undefined;
  /** An array's member index, or the opening quote of the object's last key: where a value nested in it sits. */
  at: number;
  readonly object: boolean;
}

/**
 * The first of the problems of `json` (see TextProblem), in the order of the text. What reads a message
 * after this (the SDK's schemas, the key of a kept answer, JSON.stringify of a response) walks it
 * recursively, so some thousands of levels in a few kilobytes would overflow the stack. JSON.parse keeps the
 * last copy of a key, where a gateway or proxy in front of the server may read the first (RFC 8259 leaves it
 * open), so that the two would disagree on which method runs, or on which tool or file it asks for. Read from
 * the bytes, which alone still hold both copies of a key, and which stdio holds undecoded. `json` must be
 * valid JSON in UTF-8 (read by JSON.parse first): only the brackets, commas and strings are told apart.
 *
 * One pass, linear in the text's length: strings are skipped to their closing quote (a long one with
 * Buffer's native search, each backslash before a quote counted once); each key is decoded once and looked
 * up among its object's keys. It stops at the 65th open level, so the keys kept per open object stay bounded.
 */
export function textProblemIn(json: Buffer): TextProblem | undefined {
  const open: Container[] = [];
  let keyNext = false;
  for (let index = 0; index < json.length; index++) {
    const byte = json[index];
    if (byte === QUOTE) {
      const end = closingQuote(json, index + 1);
      const container = open[open.length - 1];
      if (keyNext && container !== undefined) {
        if (addKey(json, container, index, end)) {
          const key = keyText(json, index, end);
          return { kind: "repeated key", key, path: open.slice(0, -1).map((outer) => placeIn(json, outer)) };
        }
        container.at = index;
        keyNext = false;
      }
      index = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (open.length === MAX_NESTING) return TOO_DEEP_PROBLEM;
      const object = byte === OPEN_BRACE;
      open.push({ quotes: object ? [] : undefined, decoded: undefined, at: 0, object });
      keyNext = object;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      open.pop();
      keyNext = false;
    } else if (byte === COMMA) {
      const container = open[open.length - 1];
      if (container === undefined) continue;
      keyNext = container.object;
      if (!container.object) container.at++;
    }
  }
  return undefined;
}

/**
 * Adds the key in quotes from `open` to `close` to the object `container`; true when it held the key
 * already. Its keys are compared as bytes while few and unescaped, the common case, then as strings.
 */
function addKey(json: Buffer, container: Container, open: number, close: number): boolean {
  const { quotes } = container;
  if (quotes !== undefined) {
    if (!escapes(json, open, close)) {
      for (const [keyOpen, keyClose] of quotes)
        if (sameBytes(json, keyOpen, keyClose, open, close)) return true;
      if (quotes.length < FEW_KEYS) {
        quotes.push([open, close]);
        return false;
      }
    }
    container.decoded = new Set(quotes.map(([keyOpen, keyClose]) => keyText(json, keyOpen, keyClose)));
    container.quotes = undefined;
  }
  const decoded = container.decoded ?? new Set<string>();
  container.decoded = decoded;
  const key = keyText(json, open, close);
  if (decoded.has(key)) return true;
  decoded.add(key);
  return false;
}

/** Whether the string in quotes from `open` to `close` holds an escape. */
function escapes(json: Buffer, open: number, close: number): boolean {
  for (let index = open + 1; index < close; index++) if (json[index] === BACKSLASH) return true;
  return false;
}

/** Whether the strings in quotes from `open` to `close` and from `otherOpen` to `otherClose` hold the same bytes. */
function sameBytes(
  json: Buffer,
  open: number,
  close: number,
  otherOpen: number,
  otherClose: number,
): boolean {
  if (close - open !== otherClose - otherOpen) return false;
  for (let offset = 1; offset < close - open; offset++)
    if (json[open + offset] !== json[otherOpen + offset]) return false;
  return true;
}

/** Where a value nested in `container` sits: an array's member index, or the object's last key. */
function placeIn(json: Buffer, container: Container): string | number {
  return container.object ? keyText(json, container.at, closingQuote(json, container.at + 1)) : container.at;
}

/**
 * How many keys an object's list is searched through before they are put in a set: a message's objects
 * hold a few keys each, and a set for each cost more than the scan of the message itself.
 */
const FEW_KEYS = 8;

/**
 * How many bytes of a string are read one by one before Buffer's native search takes over: a message's
 * strings are mostly short keys and names, for which a call into the search cost more than reading them.
 */
const SHORT_STRING = 32;

/** The offset of the quote that closes the string whose first byte after its opening quote is at `from`. */
function closingQuote(json: Buffer, from: number): number {
  const shortEnd = Math.min(json.length, from + SHORT_STRING);
  let index = from;
  for (; index < shortEnd; index++) {
    const byte = json[index];
    if (byte === QUOTE) return index;
    // The byte after a backslash is escaped, a quote or a backslash among them.
    if (byte === BACKSLASH) index++;
  }
  let searchFrom = index;
  for (;;) {
    const quote = json.indexOf(QUOTE, searchFrom);
    // Valid JSON closes every string.
    if (quote === -1) return json.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= searchFrom && json[quote - backslashes - 1] === BACKSLASH)
      backslashes++;
    // A backslash right before the search's start was already counted: it escaped the byte before it.
    if (backslashes % 2 === 0) return quote;
    searchFrom = quote + 1;
  }
}

/** The key in quotes from `open` to `close`, as JSON.parse reads it: parsed only when it holds an escape. */
function keyText(json: Buffer, open: number, close: number): string {
  return escapes(json, open, close)
    ? (JSON.parse(json.toString("utf8", open, close + 1)) as string)
    : json.toString("utf8", open + 1, close);
}

/**
 * The refusal of a message holding `problem`, in the words HTTP and stdio both answer: of a repeated key,
 * the key, where it is (`params.arguments`), and why a second copy is not taken.
 */
export function textProblemMessage(problem: TextProblem): string {
  if (problem.kind === "too deep") return TOO_DEEP;
  const { key, path } = problem;
  const where = path.length === 0 ? "at the message's top level" : `in ${pathText(path)}`;
  return `Invalid Request: the key ${quoted(key)} appears twice in one object, ${where}; send each key of an object once (readers of JSON disagree on which copy counts).`;
}

/** `params.arguments`, `[1].params`, `params["a b"]`: a path as JavaScript writes it, its keys as quoted shows them. */
function pathText(path: readonly (string | number)[]): string {
  const text = path
    .map((step, index) =>
      typeof step === "number"
        ? `[${step}]`
        : /^[A-Za-z_$][\w$]*$/.test(step)
          ? `${index === 0 ? "" : "."}${step}`
          : `[${quoted(step)}]`,
    )
    .join("");
  return excerpt(visible(text), 200);
}

/** Whether `problem` is the id of the message itself held twice, so that no id of it can be trusted. */
export function doubtsTheId(problem: TextProblem): boolean {
  if (problem.kind === "too deep") return false;
  const { key, path } = problem;
  return key === "id" && (path.length === 0 || (path.length === 1 && typeof path[0] === "number"));
}
