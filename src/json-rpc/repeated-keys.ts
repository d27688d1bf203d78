import { excerpt, quoted, visible } from "../visible.js";
import { MAX_NESTING } from "./nesting.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A key that one object of a JSON text holds twice, and the members that lead to that object. */
export interface RepeatedKey {
  /** The key, as JSON.parse reads it (escapes decoded: `"\u0069d"` is `id`). */
  readonly key: string;
  /** The keys and array indexes from the text's top to the object holding it; empty for the top. */
  readonly path: readonly (string | number)[];
}

/** One object or array the scan is inside: an object's keys so far, or an array's member index. */
interface Container {
  /** An object's keys so far while few (see FEW_KEYS), then in `many`. */
  readonly keys: string[] | undefined;
  many: Set<string> | undefined;
  /** The object's last key, or the array's member index: where a value nested in it sits. */
  at: string | number;
}

/**
 * The first key some object of `json` holds twice. JSON.parse keeps the last copy, where a gateway or
 * proxy in front of the server may read the first (RFC 8259 leaves it open), so that the two would
 * disagree on which method runs, or on which tool or file it asks for. `json` must be valid JSON (read
 * by JSON.parse first): only the brackets, commas and strings are told apart.
 *
 * Linear in the text's length: strings are skipped with the engine's own search for their closing
 * quote, each backslash before one counted once; each key is decoded once and looked up in its object's
 * set. Objects are followed no deeper than MAX_NESTING, past which the message is refused anyway as
 * nested too deep (so the set kept per open object stays bounded).
 */
export function repeatedKeyIn(json: string): RepeatedKey | undefined {
  const open: Container[] = [];
  let depth = 0;
  let keyNext = false;
  for (let index = 0; index < json.length; index++) {
    const byte = json.charCodeAt(index);
    if (byte === QUOTE) {
      const end = closingQuote(json, index + 1);
      const container = open[open.length - 1];
      if (keyNext && container?.keys !== undefined) {
        const key = keyText(json, index, end);
        if (holds(container, key)) return { key, path: open.slice(0, -1).map(({ at }) => at) };
        if (container.many !== undefined) container.many.add(key);
        else if (container.keys.push(key) > FEW_KEYS) container.many = new Set(container.keys);
        container.at = key;
        keyNext = false;
      }
      index = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > MAX_NESTING) return undefined;
      const object = byte === OPEN_BRACE;
      open.push({ keys: object ? [] : undefined, many: undefined, at: object ? "" : 0 });
      keyNext = object;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      open.pop();
      keyNext = false;
    } else if (byte === COMMA) {
      const container = open[open.length - 1];
      if (container === undefined) continue;
      keyNext = container.keys !== undefined;
      if (typeof container.at === "number") container.at++;
    }
  }
  return undefined;
}

/**
 * How many keys an object's list is searched through before they are put in a set: a message's objects
 * hold a few keys each, and a set for each cost more than the scan of the message itself.
 */
const FEW_KEYS = 8;

/** Whether the object `container` (its keys listed) already holds `key`. */
function holds({ keys, many }: Container, key: string): boolean {
  return many !== undefined ? many.has(key) : keys?.includes(key) === true;
}

/** The offset of the quote that closes the string whose first byte after its opening quote is at `from`. */
function closingQuote(json: string, from: number): number {
  let searchFrom = from;
  for (;;) {
    const quote = json.indexOf('"', searchFrom);
    // Valid JSON closes every string.
    if (quote === -1) return json.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= searchFrom && json.charCodeAt(quote - backslashes - 1) === BACKSLASH)
      backslashes++;
    // A backslash right before the search's start was already counted: it escaped the quote before it.
    if (backslashes % 2 === 0) return quote;
    searchFrom = quote + 1;
  }
}

/** The key in quotes from `open` to `close`, as JSON.parse reads it: parsed only when it holds an escape. */
function keyText(json: string, open: number, close: number): string {
  const key = json.slice(open + 1, close);
  return key.includes("\\") ? (JSON.parse(json.slice(open, close + 1)) as string) : key;
}

/**
 * The refusal of a message holding `repeated`, in the words HTTP and stdio both answer: the key, where
 * it is (`params.arguments`), and why a second copy is not taken.
 */
export function repeatedKeyMessage({ key, path }: RepeatedKey): string {
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

/** Whether `repeated` is the id of the message itself, so that no id of it can be trusted. */
export function repeatsTheId({ key, path }: RepeatedKey): boolean {
  return key === "id" && (path.length === 0 || (path.length === 1 && typeof path[0] === "number"));
}
