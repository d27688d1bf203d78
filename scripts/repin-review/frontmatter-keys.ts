import { closingLineIndex, readFrontmatterFields, stripBom } from "../../src/catalog/index.js";
import { excerpt } from "../../src/shared/index.js";

export interface KeyChange {
  readonly key: string;
  readonly kind: "added" | "removed" | "changed";
}

/**
 * The most keys of one skill the review keeps, and the characters of each: a frontmatter of 64 KiB holds
 * a thousand long keys, and a bump may add thousands of skills.
 */
const KEPT_KEYS = 20;
const KEY_CHARS = 64;

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
export function keptKeys<T>(
  keys: readonly T[],
  keyOf: (item: T) => string,
  cut: (item: T, key: string) => T,
) {
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
    if (was === undefined) changes.push({ key, kind: "added" });
    else if (was !== value) changes.push({ key, kind: "changed" });
  }
  for (const key of old.keys()) if (!now.has(key)) changes.push({ key, kind: "removed" });
  const { kept, leftOut } = keptKeys(
    changes.filter(({ key }) => !NAMED_KEYS.has(key)),
    ({ key }) => key,
    (change, key) => ({ ...change, key }),
  );
  return { keys: kept, keysLeftOut: leftOut };
}

/** The keys the review shows on their own, in the lists of skills and of descriptions. */
export const NAMED_KEYS: ReadonlySet<string> = new Set(["name", "description"]);

/**
 * Each top-level key of a frontmatter, as YAML reads it, with the text of its value: the lines from its
 * `key:` line (the key plain or quoted) to the next, or, for a key no line starts (a flow mapping,
 * `{name: x, allowed-tools: Bash}`), its value as data. A comment at the start of a line belongs to no key:
 * it changes none. A frontmatter YAML cannot read has the keys its lines start.
 */
export function topLevelKeys(frontmatter: string): Map<string, string> {
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
