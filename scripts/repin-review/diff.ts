import { randomInt } from "node:crypto";

/** Lines added and removed between two texts, as a diff counts them. */
export interface LineChanges {
  readonly added: number;
  readonly removed: number;
  /** Lines both texts have, in the same order. */
  readonly unchanged: number;
}

/** One step from the old text to the new: an item both keep, or one that only the old or the new has. */
export interface Edit<T> {
  readonly kind: "same" | "removed" | "added";
  readonly item: T;
}

/**
 * How much an edit script may cost, past the start and end both sides share: at most `items` items on a
 * side and `edits` insertions and deletions. Work grows as items × edits and memory as edits², so these
 * keep untrusted text from costing more than a fixed amount.
 */
export interface DiffLimits {
  readonly items: number;
  readonly edits: number;
}

/** Past this many edits, counting by content (moved lines count as unchanged) is close enough and cheap. */
const MAX_COUNTED_EDITS = 2000;

/** What a unified diff of a SKILL.md body may cost before it is left out (see DiffLimits). */
export const UNIFIED_LIMITS: DiffLimits = { items: 5000, edits: 1000 };

/**
 * How many lines `after` adds to `before` and removes from it, by the shortest edit script (Myers):
 * what `git diff --numstat` would say, up to ties.
 */
export function countLineChanges(before: string, after: string): LineChanges {
  const ids = lineTable();
  const a = lineIds(ids.add(before), before, ids);
  const b = lineIds(ids.add(after), after, ids);
  const { start, endA, endB } = commonEnds(a, b);
  const x = a.subarray(start, endA);
  const y = b.subarray(start, endB);
  const edits = search(x, y, MAX_COUNTED_EDITS, undefined);
  const { added, removed } =
    edits === undefined ? countByContent(x, y) : fromEdits(x.length, y.length, edits);
  return { added, removed, unchanged: b.length - added };
}

/**
 * The shortest edit script from `a` to `b` (Myers), items compared with `===`; undefined when it would
 * cost more than `limits` allow.
 */
export function editScript<T>(a: readonly T[], b: readonly T[], limits: DiffLimits): Edit<T>[] | undefined {
  const { start, endA, endB } = commonEnds(a, b);
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  if (x.length > limits.items || y.length > limits.items) return undefined;
  const rounds: Int32Array[] = [];
  if (search(x, y, limits.edits, rounds) === undefined) return undefined;
  const same = (item: T): Edit<T> => ({ kind: "same", item });
  return [...a.slice(0, start).map(same), ...backtrack(x, y, rounds), ...a.slice(endA).map(same)];
}

/**
 * The script that removes everything between the start and the end both share and adds what `b` has
 * there: less precise than {@link editScript}, but true, and linear in any input.
 */
export function spanScript<T>(a: readonly T[], b: readonly T[]): Edit<T>[] {
  const { start, endA, endB } = commonEnds(a, b);
  const as =
    (kind: Edit<T>["kind"]) =>
    (item: T): Edit<T> => ({ kind, item });
  return [
    ...a.slice(0, start).map(as("same")),
    ...a.slice(start, endA).map(as("removed")),
    ...b.slice(start, endB).map(as("added")),
    ...a.slice(endA).map(as("same")),
  ];
}

/**
 * The hunks of a unified diff from `before` to `after` (`@@ -1,3 +1,4 @@` headers, then lines marked with a
 * space, `-` or `+`), with `context` unchanged lines around each change; undefined when the two texts
 * differ too much to diff within UNIFIED_LIMITS.
 */
export function unifiedDiff(before: string, after: string, context = 3): string[] | undefined {
  const edits = editScript(splitLines(before), splitLines(after), UNIFIED_LIMITS);
  if (edits === undefined) return undefined;
  const numbered: (Edit<string> & { readonly old: number; readonly new: number })[] = [];
  let old = 1;
  let now = 1;
  for (const edit of edits) {
    numbered.push({ ...edit, old, new: now });
    if (edit.kind !== "added") old++;
    if (edit.kind !== "removed") now++;
  }
  const changed = numbered.flatMap((edit, index) => (edit.kind === "same" ? [] : [index]));
  const lines: string[] = [];
  let next = 0;
  while (next < changed.length) {
    const first = changed[next] ?? 0;
    let last = first;
    while (next < changed.length && (changed[next] ?? 0) - last <= 2 * context)
      last = changed[next++] ?? last;
    const hunk = numbered.slice(Math.max(0, first - context), last + context + 1);
    const oldCount = hunk.filter((edit) => edit.kind !== "added").length;
    const newCount = hunk.filter((edit) => edit.kind !== "removed").length;
    // An empty side is named by the line before it, as diff does (`-0,0` for a file that was empty).
    const from = (start: number, count: number) => `${count === 0 ? start - 1 : start},${count}`;
    lines.push(`@@ -${from(hunk[0]?.old ?? 1, oldCount)} +${from(hunk[0]?.new ?? 1, newCount)} @@`);
    for (const edit of hunk) lines.push(`${{ same: " ", removed: "-", added: "+" }[edit.kind]}${edit.item}`);
  }
  return lines;
}

/**
 * How a text's line endings changed: each side named (`LF`, `CRLF`, `CR`, or how many of its lines end in
 * CRLF or CR), and whether nothing else did. A carriage return is an ending right before a line feed, or in
 * a text with no line feed at all (old Mac OS), as the audit reads it: one inside a line of a text with line
 * feeds, or one more before the ending, is content.
 */
export interface EndingsChange {
  readonly before: string;
  readonly after: string;
  readonly only: boolean;
}

/**
 * Two texts compared with their line endings left out, so that a file moved to CRLF or CR or back reads as
 * the one-line change it is, not as every line removed and added again: the texts with LF endings, what
 * their lines add and remove, and how the endings changed (undefined when both sides' endings are named
 * alike and something else changed).
 */
export function compareIgnoringEndings(
  before: string,
  after: string,
): { before: string; after: string; lines: LineChanges; endings: EndingsChange | undefined } {
  const [a, b] = [withLineFeeds(before), withLineFeeds(after)];
  if (a === before && b === after)
    return { before, after, lines: countLineChanges(a, b), endings: undefined };
  const [was, now] = [endingsOf(before), endingsOf(after)];
  return {
    before: a,
    after: b,
    lines: countLineChanges(a, b),
    // Alike by name but moved between lines, they are still all that changed.
    endings:
      was === now && (a !== b || before === after) ? undefined : { before: was, after: now, only: a === b },
  };
}

/**
 * Whether two texts read the same but for whitespace: each line's leading and trailing whitespace, the
 * length of each run of it inside a line, and blank lines. Two words joined or split are a change.
 */
export function sameButWhitespace(before: string, after: string): boolean {
  // Read word by word, in step, up to the first difference: each text trimmed line by line and joined
  // again made four copies of it, for every changed file (a 16 MiB one among them) when most differ early.
  let a = spaceEnd(before, 0);
  let b = spaceEnd(after, 0);
  for (;;) {
    while (a < before.length && b < after.length && before.charCodeAt(a) === after.charCodeAt(b)) {
      if (isSpace(before.charCodeAt(a))) break;
      a++;
      b++;
    }
    // Both at the end of a word, or they differ.
    const wordEndA = a === before.length || isSpace(before.charCodeAt(a));
    const wordEndB = b === after.length || isSpace(after.charCodeAt(b));
    if (!wordEndA || !wordEndB) return false;
    const gapA = spaceEnd(before, a);
    const gapB = spaceEnd(after, b);
    if (gapA === before.length || gapB === after.length)
      return gapA === before.length && gapB === after.length;
    // Words on one line are told apart from words on two (blank lines between them or not).
    if (hasLineFeed(before, a, gapA) !== hasLineFeed(after, b, gapB)) return false;
    a = gapA;
    b = gapB;
  }
}

/** Where the run of whitespace at `start` of `text` ends. */
function spaceEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isSpace(text.charCodeAt(end))) end++;
  return end;
}

function hasLineFeed(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) if (text.charCodeAt(index) === 10) return true;
  return false;
}

/** Whether a UTF-16 code unit is whitespace as `\s` and trim() have it. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && SPACE.test(String.fromCharCode(code)));
}

const SPACE = /\s/;

/**
 * `text` with each of its line endings (see {@link EndingsChange}) a line feed: CRLF, or CR in a text with
 * no line feed.
 */
export function withLineFeeds(text: string): string {
  return text.includes("\n") ? text.replaceAll("\r\n", "\n") : text.replaceAll("\r", "\n");
}

/**
 * `LF`, `CRLF`, `CR`, or how many of its lines end in CRLF or CR when not all do: a last line without an
 * ending counts as one that does not, so that a bump ending it reads as a change.
 */
function endingsOf(text: string): string {
  if (!text.includes("\n") && text.includes("\r")) {
    let cr = 0;
    for (let end = text.indexOf("\r"); end >= 0; end = text.indexOf("\r", end + 1)) cr++;
    const lines = text.endsWith("\r") ? cr : cr + 1;
    return cr === lines
      ? "CR"
      : `CR on ${cr.toLocaleString("en-US")} of ${lines.toLocaleString("en-US")} lines`;
  }
  let crlf = 0;
  let lines = text === "" || text.endsWith("\n") ? 0 : 1;
  for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", end + 1)) {
    lines++;
    if (text.charCodeAt(end - 1) === 13) crlf++;
  }
  if (crlf === 0) return "LF";
  return crlf === lines
    ? "CRLF"
    : `CRLF on ${crlf.toLocaleString("en-US")} of ${lines.toLocaleString("en-US")} lines`;
}

/**
 * The lines of `text` as {@link splitLines} has them, each numbered by its content in `ids`: four bytes a
 * line, where an array of them takes eight for each line and eight for its number (a file of 16 MiB of
 * line feeds is 16 million lines).
 */
function lineIds(number: number, text: string, ids: LineTable): Int32Array {
  let count = text === "" || text.endsWith("\n") ? 0 : 1;
  for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", end + 1)) count++;
  const numbered = new Int32Array(count);
  let start = 0;
  for (let index = 0; index < count; index++) {
    const found = text.indexOf("\n", start);
    const end = found < 0 ? text.length : found;
    numbered[index] = ids.idOf(number, start, end);
    start = end + 1;
  }
  return numbered;
}

/** Numbers lines by content: the same number for the same line, of any of the texts added to it. */
interface LineTable {
  /** The number by which {@link idOf} names `text`. */
  add(text: string): number;
  /** The id of the line from `start` to `end` of the `text`th text added. */
  idOf(text: number, start: number, end: number): number;
}

/**
 * A {@link LineTable} that holds no string for a line: where each distinct line first occurs (its text,
 * start and end) and its hash, in typed arrays, found through an open-addressing table of the hashes and
 * told apart by their characters, so counts stay exact. A Map keyed by each line took some 12 times the
 * size of a pair of files of short distinct lines (16 MiB each, lines of 10 characters: 394 MiB); this
 * takes some 30 bytes a distinct line. The hash is seeded at random, as V8's own string hash is, so that
 * no file can be made of lines that all share one.
 */
export function lineTable(seed = randomInt(2 ** 31)): LineTable {
  const texts: string[] = [];
  // Per distinct line, by id: [text, start, end, hash].
  let lines = new Int32Array(4 * 64);
  let slots = new Int32Array(128);
  let distinct = 0;
  const at = (id: number, field: number) => lines[4 * id + field] ?? 0;
  const place = (id: number) => {
    let slot = at(id, 3) & (slots.length - 1);
    while ((slots[slot] ?? 0) !== 0) slot = (slot + 1) & (slots.length - 1);
    slots[slot] = id + 1;
  };
  const same = (text: string, start: number, end: number, id: number) => {
    const [held, from, to] = [texts[at(id, 0)] ?? "", at(id, 1), at(id, 2)];
    if (to - from !== end - start) return false;
    for (let offset = 0; offset < end - start; offset++)
      if (held.charCodeAt(from + offset) !== text.charCodeAt(start + offset)) return false;
    return true;
  };
  return {
    add(text) {
      texts.push(text);
      return texts.length - 1;
    },
    idOf(number, start, end) {
      const text = texts[number] ?? "";
      const hash = hashOf(text, start, end, seed);
      let slot = hash & (slots.length - 1);
      for (let held = slots[slot] ?? 0; held !== 0; held = slots[slot] ?? 0) {
        if (at(held - 1, 3) === hash && same(text, start, end, held - 1)) return held - 1;
        slot = (slot + 1) & (slots.length - 1);
      }
      if (4 * (distinct + 1) > lines.length) {
        const grown = new Int32Array(2 * lines.length);
        grown.set(lines);
        lines = grown;
      }
      lines[4 * distinct] = number;
      lines[4 * distinct + 1] = start;
      lines[4 * distinct + 2] = end;
      lines[4 * distinct + 3] = hash;
      const id = distinct++;
      // Half full at most, so that a search ends soon.
      if (2 * distinct > slots.length) {
        slots = new Int32Array(2 * slots.length);
        for (let placed = 0; placed < distinct; placed++) place(placed);
      } else slots[slot] = id + 1;
      return id;
    },
  };
}

/** A 32-bit hash of `text` from `start` to `end` (Jenkins' one-at-a-time, as V8 hashes strings), seeded. */
export function hashOf(text: string, start: number, end: number, seed: number): number {
  let hash = seed;
  for (let index = start; index < end; index++) {
    hash = (hash + text.charCodeAt(index)) | 0;
    hash = (hash + (hash << 10)) | 0;
    hash ^= hash >>> 6;
  }
  hash = (hash + (hash << 3)) | 0;
  hash ^= hash >>> 11;
  return (hash + (hash << 15)) | 0;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The length of the start both share, and where the end both share begins in each. */
function commonEnds<T>(a: ArrayLike<T>, b: ArrayLike<T>): { start: number; endA: number; endB: number } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return { start, endA, endB };
}

/**
 * Myers' search for the shortest edit script from `a` to `b`: its length, or undefined past `max`. With
 * `rounds`, it keeps how far each diagonal reached after each round (round d covers diagonals -d to d),
 * for {@link backtrack} to recover the script.
 */
function search<T>(
  a: ArrayLike<T>,
  b: ArrayLike<T>,
  max: number,
  rounds: Int32Array[] | undefined,
): number | undefined {
  const offset = max + 1;
  const furthest = new Int32Array(2 * max + 3);
  for (let edits = 0; edits <= max; edits++) {
    for (let diagonal = -edits; diagonal <= edits; diagonal += 2) {
      const down = furthest[offset + diagonal + 1] ?? 0;
      const right = (furthest[offset + diagonal - 1] ?? 0) + 1;
      let x = diagonal === -edits || (diagonal !== edits && right - 1 < down) ? down : right;
      let y = x - diagonal;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      furthest[offset + diagonal] = x;
      if (x >= a.length && y >= b.length) {
        rounds?.push(furthest.slice(offset - edits, offset + edits + 1));
        return edits;
      }
    }
    rounds?.push(furthest.slice(offset - edits, offset + edits + 1));
  }
  return undefined;
}

/** Walks the rounds of {@link search} back from the end, one edit and the equal run after it per round. */
function backtrack<T>(a: readonly T[], b: readonly T[], rounds: readonly Int32Array[]): Edit<T>[] {
  const backwards: Edit<T>[] = [];
  const keep = (index: number) => {
    const item = a[index];
    if (item !== undefined) backwards.push({ kind: "same", item });
  };
  let x = a.length;
  let y = b.length;
  for (let edits = rounds.length - 1; edits > 0; edits--) {
    const previous = rounds[edits - 1];
    const reached = (diagonal: number) => previous?.[diagonal + edits - 1] ?? 0;
    const diagonal = x - y;
    const down = diagonal === -edits || (diagonal !== edits && reached(diagonal - 1) < reached(diagonal + 1));
    const from = down ? diagonal + 1 : diagonal - 1;
    const fromX = reached(from);
    const fromY = fromX - from;
    // Where the edit of this round landed: one line down (added) or one to the right (removed).
    const [landedX, landedY] = down ? [fromX, fromY + 1] : [fromX + 1, fromY];
    while (x > landedX && y > landedY) {
      x--;
      y--;
      keep(x);
    }
    const item = down ? b[fromY] : a[fromX];
    if (item !== undefined) backwards.push({ kind: down ? "added" : "removed", item });
    x = fromX;
    y = fromY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    keep(x);
  }
  return backwards.reverse();
}

function fromEdits(before: number, after: number, edits: number): { added: number; removed: number } {
  const common = (before + after - edits) / 2;
  return { added: after - common, removed: before - common };
}

function countByContent(a: Int32Array, b: Int32Array): { added: number; removed: number } {
  // Line ids are numbered from 0 up (see lineTable): counted in an array, not a Map entry for each line.
  let size = 0;
  for (const id of a) size = Math.max(size, id + 1);
  const counts = new Int32Array(size);
  for (const id of a) counts[id] = (counts[id] ?? 0) + 1;
  let added = 0;
  for (const id of b) {
    const left = counts[id] ?? 0;
    if (left > 0) counts[id] = left - 1;
    else added++;
  }
  return { added, removed: a.length - (b.length - added) };
}
