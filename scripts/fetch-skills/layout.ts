/**
 * Where things sit in the text of a skills.toml: the line of each key (smol-toml gives positions only for
 * syntax errors) and the exact span of each value, so `--update` can rewrite a `ref` and nothing else.
 * This is a small scanner of TOML statements, not a parser: smol-toml decides what the file means, and
 * callers check that the two agree.
 */

/** A value as written: `start`..`end` are offsets into the text, `line` is 1-based. */
interface ValueSpan {
  readonly line: number;
  readonly start: number;
  readonly end: number;
}

/** One `[[source]]` table: its header line and the spans of the values of its plain keys. */
interface SourceTable {
  readonly line: number;
  readonly keys: ReadonlyMap<string, ValueSpan>;
  /**
   * The line where each of the table's keys first appears, however written: plain (`ref = …`), dotted
   * (`meta.x = …` gives `meta`) or as a sub-table header (`[source.meta]`).
   */
  readonly keyLines: ReadonlyMap<string, number>;
}

export interface ManifestLayout {
  /** Top-level keys and table names, with the line where each first appears. */
  readonly rootKeys: ReadonlyMap<string, number>;
  readonly sources: readonly SourceTable[];
}

/** Thrown inside the scanner when the text is not the kind of TOML it can follow. */
class LayoutError extends Error {}

/** The layout of `text`, or undefined when the scanner cannot follow it (then no line numbers are given). */
export function locateSources(text: string): ManifestLayout | undefined {
  try {
    return scan(text);
  } catch (error) {
    if (error instanceof LayoutError) return undefined;
    throw error;
  }
}

function scan(text: string): ManifestLayout {
  const rootKeys = new Map<string, number>();
  const sources: { line: number; keys: Map<string, ValueSpan>; keyLines: Map<string, number> }[] = [];
  let table: "root" | "other" | (typeof sources)[number] = "root";
  const lineOf = lineNumbers(text);
  const noteRoot = (key: string, offset: number) => {
    if (!rootKeys.has(key)) rootKeys.set(key, lineOf(offset));
  };

  // A byte order mark (Notepad writes one) is no statement; smol-toml skips it too.
  let pos = skipTrivia(text, text.startsWith("\uFEFF") ? 1 : 0);
  while (pos < text.length) {
    if (text[pos] === "[") {
      const isArray = text[pos + 1] === "[";
      const keyStart = skipBlanks(text, pos + (isArray ? 2 : 1));
      const header = readKey(text, keyStart);
      const close = skipBlanks(text, header.end);
      if (!text.startsWith(isArray ? "]]" : "]", close)) throw new LayoutError();
      const [first = "", second] = header.segments;
      noteRoot(first, pos);
      const current = sources.at(-1);
      if (isArray && header.segments.length === 1 && first === "source") {
        table = { line: lineOf(pos), keys: new Map(), keyLines: new Map() };
        sources.push(table);
      } else {
        if (first === "source" && second !== undefined && current && !current.keyLines.has(second)) {
          current.keyLines.set(second, lineOf(pos));
        }
        table = "other";
      }
      pos = endOfStatement(text, close + (isArray ? 2 : 1));
      continue;
    }
    const key = readKey(text, pos);
    const equals = skipBlanks(text, key.end);
    if (text[equals] !== "=") throw new LayoutError();
    const start = skipBlanks(text, equals + 1);
    const end = skipValue(text, start);
    if (table === "root") noteRoot(key.segments[0] ?? "", pos);
    else if (table !== "other") {
      const name = key.segments[0] ?? "";
      if (!table.keyLines.has(name)) table.keyLines.set(name, lineOf(pos));
      if (key.segments.length === 1 && !table.keys.has(name)) {
        table.keys.set(name, { line: lineOf(pos), start, end });
      }
    }
    pos = endOfStatement(text, end);
  }
  return { rootKeys, sources };
}

/**
 * The 1-based line of an offset into `text`, by halving among its line breaks, found once: counted from the
 * start for each key, a skills.toml of many keys took time quadratic in its length (22,000 keys, 256 KiB: 5.9 s).
 */
function lineNumbers(text: string): (offset: number) => number {
  const breaks: number[] = [];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) breaks.push(i);
  return (offset) => {
    // The number of breaks before `offset`.
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((breaks[middle] ?? offset) < offset) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}

/** After a statement only blanks and a comment may follow on its line. */
function endOfStatement(text: string, pos: number): number {
  const after = skipBlanks(text, pos);
  if (after < text.length && text[after] !== "\n" && text[after] !== "\r" && text[after] !== "#") {
    throw new LayoutError();
  }
  return skipTrivia(text, after);
}

function skipBlanks(text: string, pos: number): number {
  let at = pos;
  while (text[at] === " " || text[at] === "\t") at++;
  return at;
}

/** Skips blanks, line breaks and comments. */
function skipTrivia(text: string, pos: number): number {
  let at = pos;
  while (at < text.length) {
    const char = text[at];
    if (char === " " || char === "\t" || char === "\n" || char === "\r") at++;
    else if (char === "#") {
      const newline = text.indexOf("\n", at);
      at = newline === -1 ? text.length : newline;
    } else break;
  }
  return at;
}

/** A dotted key (`a`, `"a b".c`, `'x'`): its segments unquoted, and where it ends. */
function readKey(text: string, pos: number): { segments: string[]; end: number } {
  const segments: string[] = [];
  let at = pos;
  for (;;) {
    at = skipBlanks(text, at);
    const char = text[at];
    if (char === '"' || char === "'") {
      const end = skipString(text, at);
      const raw = text.slice(at + 1, end - 1);
      segments.push(char === '"' ? unescapeBasic(raw) : raw);
      at = end;
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(text.slice(at, at + 256));
      if (!match) throw new LayoutError();
      segments.push(match[0]);
      at += match[0].length;
    }
    const next = skipBlanks(text, at);
    if (text[next] !== ".") return { segments, end: at };
    at = next + 1;
  }
}

/** Enough of TOML's escapes for key names; anything unusual makes the key unknown, which is safe. */
function unescapeBasic(raw: string): string {
  return raw.replace(/\\(["\\])/g, "$1");
}

/** The offset just past the value starting at `pos`. */
function skipValue(text: string, pos: number): number {
  const char = text[pos];
  if (char === '"' || char === "'") return skipString(text, pos);
  if (char === "[") return skipContainer(text, pos, "]", (at) => skipValue(text, at));
  if (char === "{") {
    return skipContainer(text, pos, "}", (at) => {
      const key = readKey(text, at);
      const equals = skipBlanks(text, key.end);
      if (text[equals] !== "=") throw new LayoutError();
      return skipValue(text, skipBlanks(text, equals + 1));
    });
  }
  // Numbers, booleans, dates: up to the next blank, separator or comment.
  const match = /^[^\s,\]}#]+/.exec(text.slice(pos, pos + 256));
  if (!match) throw new LayoutError();
  return pos + match[0].length;
}

function skipContainer(text: string, pos: number, close: string, item: (at: number) => number): number {
  let at = skipTrivia(text, pos + 1);
  while (text[at] !== close) {
    if (at >= text.length) throw new LayoutError();
    at = skipTrivia(text, item(at));
    if (text[at] === ",") at = skipTrivia(text, at + 1);
    else if (text[at] !== close) throw new LayoutError();
  }
  return at + 1;
}

/** Skips a basic, literal or multi-line string starting at `pos`. */
function skipString(text: string, pos: number): number {
  const quote = text[pos] ?? "";
  const triple = quote.repeat(3);
  if (text.startsWith(triple, pos)) {
    let at = pos + 3;
    for (;;) {
      if (at >= text.length) throw new LayoutError();
      if (quote === '"' && text[at] === "\\") at += 2;
      else if (text.startsWith(triple, at)) {
        let end = at + 3;
        // Up to two quotes may sit right before the closing delimiter.
        while (end - at < 5 && text[end] === quote) end++;
        return end;
      } else at++;
    }
  }
  let at = pos + 1;
  for (;;) {
    const char = text[at];
    if (char === undefined || char === "\n") throw new LayoutError();
    if (quote === '"' && char === "\\") at += 2;
    else if (char === quote) return at + 1;
    else at++;
  }
}
