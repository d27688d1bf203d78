import { isMap, isScalar, isSeq, type Scalar } from "yaml";
import { quoted } from "../shared/index.js";
import { frontmatterDocument } from "./frontmatter.js";

/**
 * An unquoted frontmatter key or value that a YAML 1.1 reader (PyYAML, Ruby's Psych, Go's yaml.v2, SnakeYAML)
 * reads as another value than YAML 1.2 does, which this server, the Skills extension's entries and
 * js-yaml read: `on` is the text "on" here and true there, `2024-01-15` a date there, `1:30` the number 90.
 */
interface Yaml11Reading {
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
  /**
   * Who reads it so: PyYAML and the YAML 1.1 parsers that share its readings, or only Ruby's Psych, which
   * reads `tRUE`, `nULL` or `.iNf` in any mix of cases (PyYAML and yaml.v2 take three spellings of each),
   * `1,000` as a number, `2024-1-5` as a date and `:x` as a symbol.
   */
  readonly reader: "yaml11" | "psych";
  /**
   * For a key only: the earlier key of the same mapping that this one is to a YAML 1.1 reader (`on` and
   * `true`; in Python `1` and `yes` too), the one of the two to quote, and which readers (`PyYAML`, `Ruby's
   * Psych`). Such a reader keeps only the later key's value; this server keeps both.
   */
  readonly sameKeyAs?: { readonly key: string; readonly quote: string; readonly by: string };
  /**
   * Set when `value` is an explicit tag PyYAML's safe loader has no constructor for (`!x`,
   * `!!python/str`): it refuses the whole frontmatter, where this server reads the value without it.
   */
  readonly tag?: true;
}

/**
 * The unquoted keys and values of a SKILL.md's frontmatter that a YAML 1.1 reader reads otherwise than
 * YAML 1.2, in the order they are written; none when the frontmatter does not read as data. Linear in the
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
    const tagged = tagReading(node, key, false);
    if (tagged !== undefined) found.push(tagged);
    if (isMap(node)) {
      const keys = new SameKeys(key);
      for (const pair of node.items) {
        const name = isScalar(pair.key) ? keyName(pair.key) : "?";
        const path = key === "" ? name : `${key}.${name}`;
        const reading = isScalar(pair.key) ? plainReading(pair.key, path, true) : undefined;
        if (reading !== undefined) found.push(reading);
        const tagged = tagReading(pair.key, path, true);
        if (tagged !== undefined) found.push(tagged);
        const same = isScalar(pair.key) ? keys.add(pair.key, name, reading !== undefined) : undefined;
        if (same !== undefined) found.push(same);
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

/**
 * The tags PyYAML's safe loader constructs (SafeConstructor), and `!`, which makes a scalar text to both.
 * Hosts read SKILL.md with `yaml.safe_load` (a frontmatter is data from strangers).
 */
const SAFE_TAGS = new Set([
  "!",
  ...["null", "bool", "int", "float", "binary", "timestamp", "omap", "pairs", "set", "str", "seq", "map"].map(
    (name) => `tag:yaml.org,2002:${name}`,
  ),
]);

/** The reading of a node at `key` tagged with a tag PyYAML's safe loader refuses (see SAFE_TAGS), or undefined. */
function tagReading(
  node: unknown,
  key: string,
  isKey: boolean,
): { at: number; reading: Yaml11Reading } | undefined {
  if (!(isScalar(node) || isMap(node) || isSeq(node)) || node.tag === undefined || SAFE_TAGS.has(node.tag)) {
    return undefined;
  }
  const value = node.tag.replace(/^tag:yaml\.org,2002:/, "!!");
  return {
    at: node.range?.[0] ?? 0,
    reading: {
      key,
      isKey,
      value,
      yaml11: SPECIAL_WORDS.error,
      yaml12: isScalar(node) ? inWords(node.value) : isMap(node) ? "a mapping" : "a list",
      boolean: false,
      reader: "yaml11",
      tag: true,
    },
  };
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
  const value = plainSource(node);
  if (value === undefined) return undefined;
  const reading = readingOf(key, isKey, value, node.value);
  return reading === undefined ? undefined : { at: node.range?.[0] ?? 0, reading };
}

/**
 * A scalar as written, when it is plain, untagged and short enough to check: an explicit tag (`!!str on`)
 * tells both readers alike, and a quoted one is text to both. But `!`: YAML 1.2 reads `! on` as text,
 * PyYAML as it reads `on` untagged.
 */
function plainSource(node: Scalar): string | undefined {
  if (node.type !== "PLAIN" || (node.tag !== undefined && node.tag !== "!")) return undefined;
  const value = node.source;
  return typeof value === "string" && value.length <= LONGEST_CHECKED ? value : undefined;
}

/**
 * The YAML 1.1 booleans as PyYAML reads them, and SnakeYAML and Ruby's Psych: not `y` and `n`, which its
 * specification and Go's yaml.v2 add. Hosts that read SKILL.md with YAML 1.1 mostly do so in Python with
 * PyYAML, and Go hosts mostly read fields into strings (yaml.v2 keeps the text there) or use yaml.v3
 * (text), so a warning that `y` is true there would be wrong nearly everywhere it is read.
 */
const BOOLEAN = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
/**
 * The words Ruby's Psych reads in any mix of cases (its ScalarScanner matches them with `/i`), where PyYAML,
 * yaml.v2 and YAML 1.2 take only the lower, capitalised and upper forms: `tRUE` is true there, text here.
 */
const CASELESS_TRUE = /^(?:yes|true|on)$/i;
const CASELESS_FALSE = /^(?:no|false|off)$/i;
const CASELESS_NULL = /^null$/i;
const CASELESS_INFINITY = /^([-+]?)\.inf$/i;
const CASELESS_NAN = /^\.nan$/i;
/**
 * What else Psych alone reads as no text: numbers with commas (`1,000` is 1000: its integers and floats
 * allow them unless `strict_integer`), a date with a one-digit month or day (`2024-1-5`), and a symbol
 * (`:rocket`; `YAML.load` permits symbols, `safe_load` refuses them).
 */
const COMMA_INTEGER = /^[-+]?[1-9](?:\d|,\d|_\d)*$/;
const COMMA_FLOAT = /^[-+]?\d[\d_,]*\.\d*(?:[eE][-+]\d+)?$/;
const SHORT_DATE = /^(\d{4})-(1[012]|0\d|\d)-([12]\d|3[01]|0\d|\d)$/;
const SYMBOL = /^:./;
/** PyYAML's YAML 1.1 integers: binary, octal by a leading 0, decimal, hex, base 60; `_` anywhere. */
const INTEGER = /^[-+]?(?:0b[01_]+|0[0-7_]+|0|[1-9][\d_]*|0x[\dA-Fa-f_]+|[1-9][\d_]*(?::[0-5]?\d)+)$/;
/** A binary or hex integer with no digit but `_` (`0b_`): PyYAML's int() of nothing fails. */
const NO_DIGITS = /^[-+]?0[bx]_+$/;
/** PyYAML's YAML 1.1 floats: a dot required, an exponent only with its sign, base 60, infinity, NaN. */
const FLOAT =
  /^(?:[-+]?\d[\d_]*\.[\d_]*(?:[eE][-+]\d+)?|\.\d[\d_]*(?:[eE][-+]\d+)?|[-+]?\d[\d_]*(?::[0-5]?\d)+\.[\d_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** YAML 1.1 timestamps: a date, or a date and time (with the parts PyYAML checks). */
const DATE = /^(\d{4})-(\d\d)-(\d\d)$/;
const TIMESTAMP =
  /^(\d{4})-(\d\d?)-(\d\d?)(?:[Tt]|[ \t]+)(\d\d?):(\d\d):(\d\d)(?:\.\d*)?(?:[ \t]*(?:Z|[-+](\d\d?)(?::(\d\d))?))?$/;
const NULL = /^(?:~|null|Null|NULL|)$/;

/**
 * The longest value checked, so that the patterns take a bounded time on each: what a YAML 1.1 reader reads
 * otherwise is short (a timestamp takes 35 characters), but for runs of digits or `_` no one writes.
 */
const LONGEST_CHECKED = 64;

/**
 * How `value`, written unquoted at `key`, reads to YAML 1.1 when that is not `parsed`, YAML 1.2's reading:
 * to PyYAML, or else to Psych alone.
 */
function readingOf(key: string, isKey: boolean, value: string, parsed: unknown): Yaml11Reading | undefined {
  const pyyaml = yaml11Value(value, isKey);
  const psych =
    pyyaml.kind === "value" && typeof pyyaml.value === "string" && Object.is(pyyaml.value, parsed)
      ? psychOnly(value)
      : undefined;
  const read = psych ?? pyyaml;
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
    reader: psych === undefined ? "yaml11" : "psych",
  };
}

type Yaml11Value =
  | { readonly kind: "value"; readonly value: unknown }
  | { readonly kind: keyof typeof SPECIAL_WORDS };

/**
 * The readings that are no value of their own, in words. PyYAML refuses a frontmatter with a plain `=`
 * value or `<<` value (types it has no constructor for), a date or time that is none (`2023-02-29`,
 * `24:00:00`, year 0) or `0b_` (its constructors fail), so a host using it loses the whole skill; a `<<`
 * key merges the mapping it holds into its own, and is an error over anything else.
 */
const SPECIAL_WORDS = {
  date: "a date",
  timestamp: "a timestamp",
  error: "an error (no frontmatter at all)",
  merge: "a merge (an error unless it holds a mapping)",
  symbol: "a symbol (an error to its safe_load)",
} as const;

/** What a YAML 1.1 reader makes of a plain scalar, as PyYAML resolves and constructs it. */
function yaml11Value(text: string, isKey: boolean): Yaml11Value {
  if (text === "<<") return { kind: isKey ? "merge" : "error" };
  // A key `=` is text to PyYAML too: it reads such keys as text.
  if (text === "=" && !isKey) return { kind: "error" };
  if (BOOLEAN.test(text)) return { kind: "value", value: TRUE.test(text) };
  if (NULL.test(text)) return { kind: "value", value: null };
  if (NO_DIGITS.test(text)) return { kind: "error" };
  if (INTEGER.test(text)) return { kind: "value", value: integer(text.replaceAll("_", "")) };
  if (FLOAT.test(text)) return { kind: "value", value: float(text.replaceAll("_", "")) };
  const date = DATE.exec(text);
  if (date !== null) return { kind: isDate(date) ? "date" : "error" };
  const time = TIMESTAMP.exec(text);
  if (time !== null) return { kind: isDate(time) && isTime(time) ? "timestamp" : "error" };
  return { kind: "value", value: text };
}

/** What Psych alone reads in a scalar PyYAML takes for text (see CASELESS_TRUE, COMMA_INTEGER), or undefined. */
function psychOnly(text: string): Yaml11Value | undefined {
  if (CASELESS_TRUE.test(text)) return { kind: "value", value: true };
  if (CASELESS_FALSE.test(text)) return { kind: "value", value: false };
  if (CASELESS_NULL.test(text)) return { kind: "value", value: null };
  if (CASELESS_NAN.test(text)) return { kind: "value", value: Number.NaN };
  const infinity = CASELESS_INFINITY.exec(text);
  if (infinity !== null) {
    return {
      kind: "value",
      value: infinity[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY,
    };
  }
  if (SYMBOL.test(text)) return { kind: "symbol" };
  const date = SHORT_DATE.exec(text);
  // Psych's strptime fails on a day that is none, and then it keeps the text.
  if (date !== null) return isDate(date) ? { kind: "date" } : undefined;
  if (!text.includes(",")) return undefined;
  if (COMMA_INTEGER.test(text) || COMMA_FLOAT.test(text)) {
    return { kind: "value", value: Number(text.replace(/[,_]/g, "")) };
  }
  return undefined;
}

/** What Psych reads in a scalar, as far as this tells it: PyYAML's reading, or its own where that is text. */
function psychValue(text: string, pyyaml: Yaml11Value): Yaml11Value {
  const own = pyyaml.kind === "value" && typeof pyyaml.value === "string" ? psychOnly(text) : undefined;
  return own ?? pyyaml;
}

/** Whether year, month and day (groups 1 to 3) name a day: Python's date() refuses any other. */
function isDate(parts: RegExpExecArray): boolean {
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days;
}

/** Whether hour, minute, second and the zone's offset (groups 4 to 8) are in Python's ranges. */
function isTime(parts: RegExpExecArray): boolean {
  const offset = Number(parts[7] ?? 0) * 60 + Number(parts[8] ?? 0);
  return Number(parts[4]) <= 23 && Number(parts[5]) <= 59 && Number(parts[6]) <= 59 && offset < 24 * 60;
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

/**
 * The keys of one mapping as PyYAML and Psych hold them, to find two that are one key there and two here
 * (`on` and `true`; in Python also `1` and `yes`, `1` and `1.0`: a dict holds True and 1 as one key).
 * Each key is looked up once in a map per reader: linear in the mapping.
 */
class SameKeys {
  private readonly byReader = { pyyaml: new Map<string, Seen>(), psych: new Map<string, Seen>() };

  constructor(private readonly path: string) {}

  /** The reading of `key` when a reader takes it for an earlier key of the mapping, or undefined. */
  add(key: Scalar, name: string, differs: boolean): { at: number; reading: Yaml11Reading } | undefined {
    const seen: Seen = { name, differs };
    const text = plainSource(key);
    const pyyaml =
      text === undefined ? { kind: "value" as const, value: key.value } : yaml11Value(text, true);
    const psych = text === undefined ? pyyaml : psychValue(text, pyyaml);
    const inPython = this.first("pyyaml", pythonKey(pyyaml, text), seen);
    const inRuby = this.first("psych", rubyKey(psych, text), seen);
    const other = inPython ?? inRuby;
    if (other === undefined) return undefined;
    const by =
      inPython !== undefined && inRuby !== undefined
        ? "PyYAML and Ruby's Psych"
        : inPython !== undefined
          ? "PyYAML"
          : "Ruby's Psych";
    const read = inPython !== undefined ? pyyaml : psych;
    return {
      at: key.range?.[0] ?? 0,
      reading: {
        key: this.path === "" ? name : `${this.path}.${name}`,
        isKey: true,
        value: name,
        yaml11: read.kind === "value" ? inWords(read.value) : SPECIAL_WORDS[read.kind],
        yaml12: inWords(key.value),
        boolean: false,
        reader: inPython === undefined ? "psych" : "yaml11",
        sameKeyAs: { key: other.name, quote: differs || !other.differs ? name : other.name, by },
      },
    };
  }

  /** The first key seen under `identity` by `reader`, after noting `seen` under it when it is the first. */
  private first(reader: "pyyaml" | "psych", identity: string | undefined, seen: Seen): Seen | undefined {
    if (identity === undefined) return undefined;
    const keys = this.byReader[reader];
    const first = keys.get(identity);
    if (first === undefined) keys.set(identity, seen);
    return first;
  }
}

/** A key of a mapping as written, and whether a YAML 1.1 reader reads it otherwise than YAML 1.2. */
interface Seen {
  readonly name: string;
  readonly differs: boolean;
}

/**
 * A key as a Python dict tells keys apart: True is 1 and 1.0, False is 0; NaN is no key any other is. Dates
 * and times by their text (one written two ways is rare); none for a merge or an error, which end the read.
 */
function pythonKey(read: Yaml11Value, text: string | undefined): string | undefined {
  if (read.kind === "date" || read.kind === "timestamp") return `${read.kind} ${text ?? ""}`;
  if (read.kind !== "value") return undefined;
  const { value } = read;
  if (typeof value === "boolean") return `number ${value ? 1 : 0}`;
  if (typeof value === "number") return Number.isNaN(value) ? undefined : `number ${value}`;
  return value === null ? "null" : typeof value === "string" ? `text ${value}` : undefined;
}

/** A key as a Ruby hash tells keys apart: true is no number, and an integer no float (`1` and `1.0`). */
function rubyKey(read: Yaml11Value, text: string | undefined): string | undefined {
  if (read.kind === "date" || read.kind === "timestamp" || read.kind === "symbol")
    return `${read.kind} ${text ?? ""}`;
  if (read.kind !== "value") return undefined;
  const { value } = read;
  if (typeof value === "number") {
    if (Number.isNaN(value)) return undefined;
    const float = text === undefined ? !Number.isInteger(value) : !INTEGER.test(text);
    return `${float ? "float" : "integer"} ${value}`;
  }
  if (typeof value === "boolean") return `boolean ${value}`;
  return value === null ? "null" : typeof value === "string" ? `text ${value}` : undefined;
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
export function describeYaml11Reading(reading: Yaml11Reading): string {
  const { key, isKey, value, yaml11, yaml12, boolean, reader, sameKeyAs, tag } = reading;
  if (tag) {
    return (
      `frontmatter ${quoted(key, QUOTED_KEY_LENGTH)}: the tag ${quoted(value, QUOTED_KEY_LENGTH)} on ${isKey ? "the key" : "the value"} is ` +
      `${yaml11} to PyYAML (its safe loader knows no such tag) but ${yaml12} to this server (YAML 1.2), so ` +
      "hosts read it differently: remove the tag"
    );
  }
  if (sameKeyAs !== undefined) {
    return (
      `frontmatter ${quoted(key, QUOTED_KEY_LENGTH)}: the keys ${quoted(sameKeyAs.key, QUOTED_KEY_LENGTH)} and ` +
      `${quoted(value, QUOTED_KEY_LENGTH)} are one key (${yaml11}) to ${sameKeyAs.by}, which ${sameKeyAs.by.includes(" and ") ? "keep" : "keeps"} only the ` +
      `later one's value, but two to this server (YAML 1.2), so hosts read it differently: quote ` +
      `${quoted(sameKeyAs.quote, QUOTED_KEY_LENGTH)}`
    );
  }
  const fix = `quote it (${JSON.stringify(value)})${boolean ? ", or write true or false if a boolean is meant" : ""}`;
  const readers =
    reader === "psych"
      ? `${yaml11} to Ruby's Psych (YAML 1.1) but ${yaml12} to PyYAML and this server (YAML 1.2)`
      : `${yaml11} to PyYAML and other YAML 1.1 parsers but ${yaml12} to this server (YAML 1.2)`;
  return `frontmatter ${quoted(key, QUOTED_KEY_LENGTH)}: ${isKey ? "the key " : ""}${value} is ${readers}, so hosts read it differently: ${fix}`;
}
