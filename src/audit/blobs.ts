import { formatSize } from "../catalog/index.js";
import { quoted } from "../shared/index.js";
import type { Hit } from "./rules.js";
import type { Steps } from "./scan.js";

/** The shortest run reported: hashes, keys and tokens are shorter. */
const MIN_BLOB = 1024;
/** Magic numbers of images and fonts: a blob that decodes to one is an embedded picture, not hidden text. */
const MEDIA_MAGIC = [
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x47, 0x49, 0x46, 0x38],
  [0x52, 0x49, 0x46, 0x46],
  [0x77, 0x4f, 0x46, 0x46],
  [0x77, 0x4f, 0x46, 0x32],
  [0x00, 0x01, 0x00, 0x00],
  [0x4f, 0x54, 0x54, 0x4f],
] as const;

/**
 * Base64 or hex of 1 KiB or more: text nobody reviews, which a script may decode and run. A run that
 * decodes to an image or a font (a `data:` URI in HTML, a notebook's output) is a picture, and a run
 * without the variety of encoded data (a row of dashes) is not a blob.
 */
export function* encodedBlobHits(text: string): Generator<Hit> {
  for (const { start, end } of longLines(text, MIN_BLOB)) {
    for (const run of encodedRuns(text, start, end)) {
      const hit = blobHit(text, run);
      if (hit) yield hit;
    }
  }
}

/** Lines of `length` characters or more: a blob holds no line break, and most files hold no such line. */
function* longLines(text: string, length: number): Generator<{ start: number; end: number }> {
  for (let start = 0; start + length <= text.length; ) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    if (end - start >= length) yield { start, end };
    start = end + 1;
  }
}

/** A run of base64 or hex characters and the up to two `=` of padding after them. */
interface EncodedRun {
  readonly start: number;
  /** Just past the base64 or hex characters. */
  readonly digitsEnd: number;
  /** Just past the padding. */
  readonly end: number;
}

/** `A-Z a-z 0-9 + / _ -`: base64, base64url and hex digits. */
function isEncodedDigit(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x5f ||
    code === 0x2d
  );
}

/**
 * The runs of {@link MIN_BLOB} or more base64 or hex characters of `text` between `from` and `to`, each
 * with its padding: what `(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{1024,}={0,2}` finds, in one pass. That
 * regular expression overflowed the stack on a run of some millions of characters.
 */
export function encodedRuns(text: string, from: number, to: number, steps?: Steps): EncodedRun[] {
  const runs: EncodedRun[] = [];
  let index = from;
  while (index < to) {
    if (!isEncodedDigit(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const start = index;
    while (index < to && isEncodedDigit(text.charCodeAt(index))) index++;
    if (index - start < MIN_BLOB) continue;
    const digitsEnd = index;
    while (index < to && index - digitsEnd < 2 && text.charCodeAt(index) === 0x3d) index++;
    runs.push({ start, digitsEnd, end: index });
  }
  if (steps) steps.count += to - from + 1;
  return runs;
}

/**
 * What one run is: hex, base64 of some variety, decimal digits alone, or none of these; counted in one
 * pass over it. Hex of any data holds letters (the chance that 1,024 random hex digits hold none of
 * a–f is 10^-209): a run of decimal digits alone is a number (the digits of π, a big integer).
 */
function classify(
  text: string,
  { start, digitsEnd, end }: EncodedRun,
): "hex" | "base64" | "decimal" | undefined {
  const seen = new Set<number>();
  let hex = end === digitsEnd;
  let upper = false;
  let lower = false;
  let digit = false;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    seen.add(code);
    if (code >= 0x41 && code <= 0x5a) upper = true;
    else if (code >= 0x61 && code <= 0x7a) lower = true;
    else if (code >= 0x30 && code <= 0x39) digit = true;
    const isHex = (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x66);
    if (!isHex) hex = false;
  }
  if (hex) return upper || lower ? "hex" : "decimal";
  return upper && lower && digit && seen.size >= 10 ? "base64" : undefined;
}

function blobHit(text: string, run: EncodedRun): Hit | undefined {
  const kind = classify(text, run);
  const head = text.slice(run.start, Math.min(run.end, run.start + 160));
  if (kind === "decimal") return decimalHit(run, head);
  if (kind === undefined || (kind === "base64" && decodesToMedia(head))) return undefined;
  const length = run.end - run.start;
  const digits = run.digitsEnd - run.start;
  const bytes = kind === "hex" ? length / 2 : Math.floor((digits * 3) / 4);
  const preview = kind === "base64" ? readableStart(head) : "";
  return {
    rule: "encoded-blob",
    offset: run.start,
    detail: `${length.toLocaleString("en-US")} characters of ${kind} (${formatSize(bytes)} decoded)${preview}`,
  };
}

function decodeStart(head: string, characters: number): Buffer {
  return Buffer.from(head.slice(0, characters).replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

function decodesToMedia(head: string): boolean {
  const start = decodeStart(head, 16);
  return MEDIA_MAGIC.some((magic) => magic.every((byte, index) => start[index] === byte));
}

/**
 * `, decoding to "…"` when the blob starts with readable text: what a reviewer most wants to see. The
 * decoded start is at most 120 characters, so the regular expression's cost is bounded.
 */
function readableStart(head: string): string {
  const text = decodeStart(head, 160).toString("latin1");
  return /^[\x20-\x7e\t\n\r]{16,}$/.test(text) ? `, decoding to ${quoted(text)}` : "";
}

/**
 * A run of decimal digits is a finding only when its start reads as text: as hex pairs (`7368` is
 * `sh`: text of letters a–i and p–y, digits and some punctuation has hex without a letter), or as
 * three-digit character codes (`104101108108111` is `hello`), as a payload spelled in digits would.
 * The digits of a number read as neither (random digits read as text with a chance under 10^-10).
 */
function decimalHit(run: EncodedRun, head: string): Hit | undefined {
  const asHex = Buffer.from(head.slice(0, head.length - (head.length % 2)), "hex").toString("latin1");
  const codes = head.slice(0, head.length - (head.length % 3)).match(/\d{3}/g) ?? [];
  const asCodes = codes.map((code) => String.fromCharCode(Number(code) & 0xff)).join("");
  const readable = (decoded: string) => /^[\x20-\x7e\t\n\r]{16,}$/.test(decoded);
  const [how, decoded] = readable(asHex)
    ? ["hex", asHex]
    : readable(asCodes) && codes.every((code) => Number(code) < 256)
      ? ["three-digit character codes", asCodes]
      : [];
  if (decoded === undefined) return undefined;
  const length = (run.end - run.start).toLocaleString("en-US");
  return {
    rule: "encoded-blob",
    offset: run.start,
    detail: `${length} decimal digits, decoding as ${how} to ${quoted(decoded)}`,
  };
}
