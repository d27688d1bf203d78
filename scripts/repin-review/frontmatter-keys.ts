import { closingLineIndex, readFrontmatterFields, stripBom } from "../../src/catalog/index.js";
import { excerpt } from "../../src/shared/index.js";
import { markdownCode } from "../audit-markdown.js";

export interface KeyChange {
  readonly key: string;
  readonly kind: "added" | "removed" | "changed";
  /**
   * Of a key that grants (`allowed-tools`) added or changed, its value after the bump and, changed, before,
   * each cut: `Read` → `Read, Bash(*), WebFetch` widens what runs unasked, which "changed" alone hides in a
   * collapsed diff.
   */
  readonly grants?: { readonly before?: string; readonly after: string };
}

/**
 * The most keys of one skill the review keeps, and the characters of each: a frontmatter of 64 KiB holds
 * a thousand long keys, and a bump may add thousands of skills.
 */
const KEPT_KEYS = 20;
const KEY_CHARS = 64;
/** The characters of a granting key's value the review shows: a tool list, not a frontmatter of 64 KiB. */
const GRANT_CHARS = 120;

/**
 * Keys that grant a skill what it could not do unasked (`allowed-tools`, Claude Code's `hooks`) come first;
 * those the Agent Skills specification gives as information (`license`, `metadata`, `compatibility`) last;
 * any other between, as a host may act on it.
 */
export function keyRank(key: string): number {
  if (GRANTING_KEYS.has(key)) return 0;
  return INFORMATIVE_KEYS.has(key) ? 2 : 1;
}

const GRANTING_KEYS: ReadonlySet<string> = new Set(["allowed-tools", "hooks"]);
const INFORMATIVE_KEYS: ReadonlySet<string> = new Set(["license", "metadata", "compatibility"]);

/** The first KEPT_KEYS of `keys` by {@link keyRank}, each cut to KEY_CHARS, and how many are left out. */
function keptKeys<T>(keys: readonly T[], keyOf: (item: T) => string, cut: (item: T, key: string) => T) {
  const kept = [...keys]
    .sort((a, b) => keyRank(keyOf(a)) - keyRank(keyOf(b)))
    .slice(0, KEPT_KEYS)
    .map((item) => cut(item, excerpt(keyOf(item), KEY_CHARS)));
  return { kept, leftOut: keys.length - kept.length };
}

/**
 * The top-level keys of two frontmatters whose text differs, but `name` and `description`, which the
 * review shows on their own: a host acts on some (`allowed-tools` lets a skill run tools without asking),
 * and the diff showing them is collapsed. Line endings and trailing spaces do not count.
 */
export function keyChanges(
  before: string,
  after: string,
): { keys: readonly KeyChange[]; keysLeftOut: number } {
  const [old, now] = [topLevelKeys(before), topLevelKeys(after)];
  const changes: KeyChange[] = [];
  for (const [key, value] of now) {
    const was = old.get(key);
    const grants = GRANTING_KEYS.has(key);
    if (was === undefined) {
      changes.push({ key, kind: "added", ...(grants ? { grants: { after: keyValue(key, value) } } : {}) });
    } else if (was !== value) {
      const values = { before: keyValue(key, was), after: keyValue(key, value) };
      changes.push({ key, kind: "changed", ...(grants ? { grants: values } : {}) });
    }
  }
  for (const key of old.keys()) if (!now.has(key)) changes.push({ key, kind: "removed" });
  const { kept, leftOut } = keptKeys(
    changes.filter(({ key }) => !NAMED_KEYS.has(key)),
    ({ key }) => key,
    (change, key) => ({ ...change, key }),
  );
  return { keys: kept, keysLeftOut: leftOut };
}

/**
 * A key's value as {@link topLevelKeys} holds it, shown on one line: its `key:` left out, its lines and
 * spaces joined by one space, cut to GRANT_CHARS; a key no line starts (a flow mapping) holds its value
 * as JSON, a string shown as it reads.
 */
function keyValue(key: string, text: string): string {
  const written = /^["']?/.exec(text)?.[0] ?? "";
  const value = text.startsWith(`${written}${key}${written}:`)
    ? text.slice(written.length * 2 + key.length + 1)
    : jsonString(text);
  return excerpt(value.replace(/\s+/g, " ").trim(), GRANT_CHARS);
}

/** The string `text` holds as JSON, else `text` (a list, a mapping, or a value JSON cannot hold). */
function jsonString(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : text;
  } catch {
    return text;
  }
}

/** What a change of a granting key grants, for the review's line of keys: `: \`Read\` → \`Bash\``. */
export function grantsShown({ grants }: KeyChange): string {
  if (grants === undefined) return "";
  const before = grants.before === undefined ? "" : `${shownValue(grants.before)} → `;
  return `: ${before}${shownValue(grants.after)}`;
}

function shownValue(value: string): string {
  return value === "" ? "(empty)" : markdownCode(value);
}

/** The keys the review shows on their own, in the lists of skills and of descriptions. */
const NAMED_KEYS: ReadonlySet<string> = new Set(["name", "description"]);

/**
 * Each top-level key of a frontmatter, as YAML reads it, with the text of its value: the lines from its
 * `key:` line (the key plain or quoted) to the next, or, for a key no line starts (a flow mapping,
 * `{name: x, allowed-tools: Bash}`), its value as data. A comment at the start of a line belongs to no key:
 * it changes none. A frontmatter YAML cannot read has the keys its lines start.
 */
function topLevelKeys(frontmatter: string): Map<string, string> {
  const lines = new Map<string, string>();
  let key: string | undefined;
  for (const line of frontmatter.split("\n").slice(1, -1)) {
    const text = line.trimEnd();
    if (text.startsWith("#")) continue;
    const start = /^(?:"([^"]*)"|'([^']*)'|([^\s#:'"][^:]*)):(?:\s|$)/.exec(text);
    if (start !== null) key = (start[1] ?? start[2] ?? start[3] ?? "").trimEnd();
    if (key !== undefined) lines.set(key, `${lines.get(key) ?? ""}${text}\n`);
  }
  const read = readFrontmatterFields(frontmatter);
  if ("reason" in read) return lines;
  return new Map(
    Object.entries(read.fields).map(([name, value]) => [
      name,
      lines.get(name) ?? JSON.stringify(value) ?? String(value),
    ]),
  );
}

/**
 * A SKILL.md's frontmatter, its `---` lines included ("" when it has none), and its body: the whole text
 * when the frontmatter is missing or never closed.
 */
export function partsOf(text: string): { frontmatter: string; body: string } {
  const lines = stripBom(text).split("\n");
  if (lines[0]?.trimEnd() !== "---") return { frontmatter: "", body: text };
  const end = closingLineIndex(lines);
  if (end < 0) return { frontmatter: lines.join("\n"), body: text };
  return { frontmatter: lines.slice(0, end + 1).join("\n"), body: lines.slice(end + 1).join("\n") };
}
