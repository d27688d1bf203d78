import { isMap, isScalar, isSeq, type Scalar } from "yaml";
import { quoted } from "../visible.js";
import { frontmatterDocument } from "./frontmatter.js";

/**
 * An unquoted frontmatter key or value that a YAML 1.1 reader (PyYAML, Ruby's Psych, Go's yaml.v2, SnakeYAML)
 * reads as another value than YAML 1.2 does, which this server, the Skills extension's entries and
 * js-yaml read: `on` is the text "on" here and true there, `2024-01-15` a date there, `1:30` the number 90.
 */
export interface Yaml11Reading {
  /** Where it is: `version`, `metadata.version`, `tags[1]`; for a key, the path that ends with it. */
  readonly key: string;
  /** Whether it is a key (`on:` is a key true there, so a host's lookup of "on" finds nothing). */
  readonly isKey: boolean;
  /** The key or value as written. */
  readonly value: string;
  /** What YAML 1.1 reads, in words: `the boolean false`, `the number 90`, `a date`. */
  readonly yaml11: string;
  /** What YAML 1.2 reads, in words. */
  readonly yaml12: string;
  /** Whether YAML 1.1 reads a boolean: the author may have meant one, and true or false says it to both. */
  readonly boolean: boolean;
}

/**
 * The unquoted keys and values of a SKILL.md's frontmatter that a YAML 1.1 reader reads otherwise than YAML 1.2,
 * in the order they are written; none when the frontmatter does not read as data. Linear in the
 * frontmatter: a walk of its nodes without recursion (YAML nests as deep as a frontmatter is long) and, on
 * each plain key and value, anchored patterns without nested repetition.
 */
export function yaml11Readings(markdown: string): Yaml11Reading[] {
  const document = frontmatterDocument(markdown);
  if (document === undefined) return [];
  const found: { at: number; reading: Yaml11Reading }[] = [];
  const pending: { node: unknown; key: string }[] = [{ node: document.contents, key: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, key } = next;
    if (isMap(node)) {
      for (const pair of node.items) {
        const name = isScalar(pair.key) ? keyName(pair.key) : "?";
        const path = key === "" ? name : `${key}.${name}`;
        const reading = isScalar(pair.key) ? plainReading(pair.key, path, true) : undefined;
        if (reading !== undefined) found.push(reading);
        pending.push({ node: pair.value, key: path });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        pending.push({ node: item, key: `${key}[${index}]` });
      });
    } else if (isScalar(node)) {
      const reading = plainReading(node, key, false);
      if (reading !== undefined) found.push(reading);
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ reading }) => reading);
}

/** A key as the author wrote it: `08`, not the 8 YAML 1.2 reads. */
function keyName(key: Scalar): string {
  return key.type === "PLAIN" && typeof key.source === "string" ? key.source : String(key.value);
}

/** The reading of a scalar at `key` and where it starts, when it is plain and YAML 1.1 reads it otherwise. */
function plainReading(
  node: Scalar,
  key: string,
  isKey: boolean,
): { at: number; reading: Yaml11Reading } | undefined {
  // An explicit tag (`!!str on`) tells both readers alike.
  if (node.type !== "PLAIN" || node.tag !== undefined) return undefined;
  const value = node.source;
  if (typeof value !== "string" || value.length > LONGEST_CHECKED) return undefined;
  const reading = readingOf(key, isKey, value, node.value);
  return reading === undefined ? undefined : { at: node.range?.[0] ?? 0, reading };
}

/**
 * The YAML 1.1 booleans as PyYAML reads them, and SnakeYAML and Ruby's Psych: not `y` and `n`, which its
 * specification and Go's yaml.v2 add. Hosts that read SKILL.md with YAML 1.1 mostly do so in Python with
 * PyYAML, and Go hosts mostly read fields into strings (yaml.v2 keeps the text there) or use yaml.v3
 * (text), so a warning that `y` is true there would be wrong nearly everywhere it is read.
 */
const BOOLEAN = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
/** PyYAML's YAML 1.1 integers: binary, octal by a leading 0, decimal, hex, base 60; `_` anywhere. */
const INTEGER = /^[-+]?(?:0b[01_]+|0[0-7_]+|0|[1-9][\d_]*|0x[\dA-Fa-f_]+|[1-9][\d_]*(?::[0-5]?\d)+)$/;
/** PyYAML's YAML 1.1 floats: a dot required, an exponent only with its sign, base 60, infinity, NaN. */
const FLOAT =
  /^(?:[-+]?\d[\d_]*\.[\d_]*(?:[eE][-+]\d+)?|\.\d[\d_]*(?:[eE][-+]\d+)?|[-+]?\d[\d_]*(?::[0-5]?\d)+\.[\d_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** YAML 1.1 timestamps: a date, or a date and time. */
const DATE = /^\d{4}-\d\d-\d\d$/;
const TIMESTAMP =
  /^\d{4}-\d\d?-\d\d?(?:[Tt]|[ \t]+)\d\d?:\d\d:\d\d(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d\d?(?::\d\d)?))?$/;
const NULL = /^(?:~|null|Null|NULL|)$/;

/**
 * The longest value checked, so that the patterns take a bounded time on each: what a YAML 1.1 reader reads
 * otherwise is short (a timestamp takes 35 characters), but for runs of digits or `_` no one writes.
 */
const LONGEST_CHECKED = 64;

/** How `value`, written unquoted at `key`, reads to YAML 1.1 when that is not `parsed`, YAML 1.2's reading. */
function readingOf(key: string, isKey: boolean, value: string, parsed: unknown): Yaml11Reading | undefined {
  const read = yaml11Value(value, isKey);
  // Object.is: NaN is NaN to both.
  if (read.kind === "value" && Object.is(read.value, parsed)) return undefined;
  return {
    key,
    isKey,
    value,
    yaml11: read.kind === "value" ? inWords(read.value) : SPECIAL_WORDS[read.kind],
    yaml12: inWords(parsed),
    // No one means a key to be a boolean.
    boolean: !isKey && read.kind === "value" && typeof read.value === "boolean",
  };
}

type Yaml11Value =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: keyof typeof SPECIAL_WORDS };

/**
 * The readings that are no value of their own, in words. PyYAML refuses a frontmatter with a plain `=`
 * value or `<<` value (types it has no constructor for), so a host using it loses the whole skill; a `<<`
 * key merges the mapping it holds into its own, and is an error over anything else.
 */
const SPECIAL_WORDS = {
  date: "a date",
  timestamp: "a timestamp",
  error: "an error (no frontmatter at all)",
  merge: "a merge (an error unless it holds a mapping)",
} as const;

/** What a YAML 1.1 reader makes of a plain scalar, as PyYAML resolves it. */
function yaml11Value(text: string, isKey: boolean): Yaml11Value {
  if (text === "<<") return { kind: isKey ? "merge" : "error" };
  // A key `=` is text to PyYAML too: it reads such keys as text.
  if (text === "=" && !isKey) return { kind: "error" };
  if (BOOLEAN.test(text)) return { kind: "value", value: TRUE.test(text) };
  if (NULL.test(text)) return { kind: "value", value: null };
  if (INTEGER.test(text)) return { kind: "value", value: integer(text.replaceAll("_", "")) };
  if (FLOAT.test(text)) return { kind: "value", value: float(text.replaceAll("_", "")) };
  if (DATE.test(text)) return { kind: "date" };
  if (TIMESTAMP.test(text)) return { kind: "timestamp" };
  return { kind: "value", value: text };
}

function integer(text: string): number {
  const sign = text.startsWith("-") ? -1 : 1;
  const digits = text.replace(/^[-+]/, "");
  if (digits.includes(":")) return sign * sexagesimal(digits);
  if (digits.startsWith("0b")) return sign * Number.parseInt(digits.slice(2), 2);
  if (digits.startsWith("0x")) return sign * Number.parseInt(digits.slice(2), 16);
  if (digits.length > 1 && digits.startsWith("0")) return sign * Number.parseInt(digits.slice(1), 8);
  return sign * Number(digits);
}

function float(text: string): number {
  const sign = text.startsWith("-") ? -1 : 1;
  const digits = text.replace(/^[-+]/, "");
  if (/^\.inf$/i.test(digits)) return sign * Number.POSITIVE_INFINITY;
  if (/^\.nan$/i.test(digits)) return Number.NaN;
  return sign * (digits.includes(":") ? sexagesimal(digits) : Number(digits));
}

/** `1:30` as 90, `1:30:00.5` as 5400.5: each part a sixtieth of the one before. */
function sexagesimal(text: string): number {
  return text.split(":").reduce((sum, part) => sum * 60 + Number(part), 0);
}

function inWords(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return `the boolean ${value}`;
  if (typeof value === "number") return `the number ${value}`;
  return typeof value === "string" ? "text" : `a ${typeof value}`;
}

/** The longest key a warning quotes: keys come from upstream, and may be a line long. */
const QUOTED_KEY_LENGTH = 64;

/**
 * A reading as one warning for an author who need not know YAML's versions: the key and value, how
 * each side reads it, that hosts therefore differ, and the fix. PyYAML is named as the YAML 1.1 reader
 * hosts use most; the others share only part of its readings.
 */
export function describeYaml11Reading({ key, isKey, value, yaml11, yaml12, boolean }: Yaml11Reading): string {
  const fix = `quote it (${JSON.stringify(value)})${boolean ? ", or write true or false if a boolean is meant" : ""}`;
  return (
    `frontmatter ${quoted(key, QUOTED_KEY_LENGTH)}: ${isKey ? "the key " : ""}${value} is ${yaml11} to ` +
    `PyYAML and other YAML 1.1 parsers but ${yaml12} to this server (YAML 1.2), so hosts read it differently: ${fix}`
  );
}
