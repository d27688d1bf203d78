/** The work of `bench/audit-commonmark.ts`, loaded once its command line is read. */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { htmlCommentHits } from "../src/audit/index.js";
import { UsageError } from "../src/shared/index.js";
import { seededRandom } from "./synthetic-catalog.js";

/** What the measure uses of the commonmark package. */
interface CommonMark {
  readonly Parser: new () => { parse(text: string): unknown };
  readonly HtmlRenderer: new () => { render(document: unknown): string };
}

const WORDS = ["a", "word", "text", "x", "#", "##", "*", "-", "1.", ">", "aa"];
const MARKERS = ["- ", "* ", "+ ", "1. ", "2) ", "10. ", "> ", ">", "-  ", "1.  ", ">  ", "-    ", ">     "];
const INDENTS = [0, 0, 0, 1, 2, 3, 4, 5, 6, 8];
/** With --tabs: a tab after a marker goes to the next multiple of four columns, wherever it stands. */
const TAB_MARKERS = ["-\t", "1.\t", ">\t", "- >\t"];
/** With --deep: markers that hold nothing or look like breaks, and lines deeper in. */
const DEEP_MARKERS = ["1) ", "-", "* * ", "- -", ">  > "];
const DEEP_INDENTS = [...INDENTS, 7, 9, 10, 12];
const BREAKS = ["---", "***", "==="];
const DEEP_BREAKS = [...BREAKS, "- - -", "-", "=", "* *", "--", "___"];
const HTML = ["<div>", "<pre>", "</pre>", "<span>", "</div>"];
const DEEP_HTML = [...HTML, "<details>", "<?x", "?>", "<script>", "</script>"];
/** With --wide: the runs a document repeats at the start of its lines, more times than are read one by one. */
const WIDE_RUNS = [">", "> ", ">  ", "- ", "* ", "1. ", "-  ", "- > ", "> - ", "1. > ", ">\t", "-   "];
/** With --uneven: the run that fills the first eight markers, then markers whose text stands far past them. */
const UNEVEN_RUNS = ["- ", "> ", "1. "];
const UNEVEN_MARKERS = [
  ...["- ", "-  ", "-   ", "-    ", "* ", "+   ", "1. ", "10) ", "1.     ", "12345.  ", "123456789. "],
  ...["123456789.    ", "99) ", ">", "> ", ">   ", "-\t"],
];
const FENCES = ["```", "~~~", "````"];

/** How documents are written: see the usage. */
interface Writing {
  readonly tabs: boolean;
  readonly deep: boolean;
  readonly wide: boolean;
  readonly uneven: boolean;
}

/**
 * Writes documents from `random`, numbering their comments from 0; with `tabs`, markers followed by a
 * tab and lines indented by tabs too; with `deep`, up to five markers a line and more kinds of markers,
 * breaks and HTML (without either, the same documents as before the options).
 */
function documentWriter(random: () => number, { tabs, deep, wide, uneven }: Writing): () => string {
  const markers = [...MARKERS, ...(tabs ? TAB_MARKERS : []), ...(deep ? DEEP_MARKERS : [])];
  const indents = deep ? DEEP_INDENTS : INDENTS;
  const counts = deep ? [0, 0, 1, 1, 2, 3, 4, 5] : [0, 0, 1, 1, 2, 3];
  let comments = 0;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const paragraph = () => {
    const parts: string[] = [];
    for (let count = between(1, 5); count > 0; count--) {
      const draw = random();
      if (draw < 0.35) parts.push(pick(WORDS));
      else if (draw < 0.6) parts.push("`".repeat(between(1, 3)));
      else if (draw < 0.65) parts.push("\\`");
      else parts.push(`<!-- c${comments++} -->`);
    }
    return parts.join(pick([" ", "", " "]));
  };
  const block = () => {
    const draw = random();
    if (draw < 0.45) return paragraph();
    if (draw < 0.55) return `${"#".repeat(between(1, 2))} ${paragraph()}`;
    if (draw < 0.65) return pick(["```", "~~~", "````", "```js"]);
    if (draw < 0.72) return pick(deep ? DEEP_HTML : HTML) + pick(["", ` ${paragraph()}`]);
    if (draw < 0.76) return pick(deep ? DEEP_BREAKS : BREAKS);
    if (draw < 0.82) return "";
    return `${pick(markers)}${paragraph()}`;
  };
  /** With --wide: the run of markers a document repeats, and how many times. */
  let run = "";
  let times = 0;
  /** A line that starts with the document's run (or some of it, or white space as wide), or undefined. */
  const wideStart = (): string | undefined => {
    const draw = random();
    if (draw < 0.35) return run.repeat(times);
    if (draw < 0.5) return run.repeat(between(1, times - 1));
    if (draw < 0.7) return " ".repeat(between(0, run.replace("\t", "    ").length * times + 4));
    if (draw < 0.8) return `${run.repeat(times)}${pick(["  ", ">  ", "    "])}`;
    return undefined;
  };
  /** With --uneven: the document's first line, and a line after it. */
  const unevenRun = () => {
    let line = pick(UNEVEN_RUNS).repeat(between(8, 10));
    for (let count = between(2, 6); count > 0; count--) line += pick(UNEVEN_MARKERS);
    return line;
  };
  /** With --uneven: a line's indentation, half the time within four columns of the line before's. */
  let last = 0;
  const indent = () => {
    last = random() < 0.5 ? Math.max(0, last + between(-4, 4)) : between(0, 49);
    return " ".repeat(last);
  };
  const unevenLine = (first: string): string => {
    const draw = random();
    const comment = `<!-- c${comments++} -->`;
    if (draw < 0.45) return indent() + comment;
    if (draw < 0.57) return "";
    if (draw < 0.72) return indent() + pick(FENCES);
    if (draw < 0.82) return indent() + pick(UNEVEN_MARKERS) + pick(["x", "aa", comment]);
    if (draw < 0.9) return indent() + pick(WORDS);
    last = first.length;
    return first + pick(["x", comment]);
  };
  return () => {
    const lines: string[] = [];
    if (uneven) {
      const first = unevenRun();
      last = first.length;
      lines.push(first + pick(["x", "aa", `<!-- c${comments++} -->`]));
      for (let count = between(2, 8); count > 0; count--) lines.push(unevenLine(first));
      return `${lines.join("\n")}\n`;
    }
    if (wide) {
      run = pick(WIDE_RUNS);
      times = between(6, 14);
    }
    for (let count = between(3, 10); count > 0; count--) {
      if (random() < 0.15) {
        lines.push("");
        continue;
      }
      const start = wide ? wideStart() : undefined;
      if (start !== undefined) {
        lines.push(start + block());
        continue;
      }
      let line = tabs && random() < 0.1 ? "\t".repeat(between(1, 2)) : "";
      line += " ".repeat(pick(indents));
      for (let count = pick(counts); count > 0; count--) line += pick(markers);
      lines.push(line + block());
    }
    return `${lines.join("\n")}\n`;
  };
}

function loadCommonMark(): CommonMark {
  try {
    return createRequire(import.meta.url)("commonmark") as CommonMark;
  } catch {
    throw new UsageError("commonmark is not installed: npm install --no-save commonmark@0.31.2");
  }
}

/** What to measure: how many documents, from which seed, written how, and where to write misses and flags. */
interface Measure extends Writing {
  readonly count: number;
  readonly seed: number;
  readonly misses?: string;
  readonly flags?: string;
}

/** Measures `count` documents; a missing commonmark package throws a UsageError. */
export function main(values: Measure): void {
  const { count, seed } = values;
  const commonmark = loadCommonMark();
  const parser = new commonmark.Parser();
  const renderer = new commonmark.HtmlRenderer();
  const nextDocument = documentWriter(seededRandom(seed), values);
  let hiddenLines = 0;
  let missed = 0;
  let flagged = 0;
  const written: string[] = [];
  const wrongly: string[] = [];
  for (let index = 0; index < count; index++) {
    const text = nextDocument();
    const html = renderer.render(parser.parse(text));
    const lineOf = (offset: number) => text.slice(0, offset).split("\n").length;
    const hidden = new Set<number>();
    for (const comment of text.matchAll(/<!-- c\d+ -->/g)) {
      if (html.includes(comment[0])) hidden.add(lineOf(comment.index));
    }
    const found = new Set([...htmlCommentHits(text)].map((hit) => lineOf(hit.offset)));
    const misses = [...hidden].filter((line) => !found.has(line));
    hiddenLines += hidden.size;
    missed += misses.length;
    const flags = [...found].filter((line) => !hidden.has(line));
    flagged += flags.length;
    if (values.flags !== undefined && flags.length > 0) {
      wrongly.push(`=== document ${index}, flagged line ${flags.join(", ")}\n${text}--- commonmark\n${html}`);
    }
    if (values.misses !== undefined && misses.length > 0) {
      written.push(`=== document ${index}, missed line ${misses.join(", ")}\n${text}--- commonmark\n${html}`);
    }
  }
  console.log(
    `${count} documents, seed ${seed}${values.tabs ? ", tabs" : ""}${values.deep ? ", deep" : ""}${values.wide ? ", wide" : ""}${values.uneven ? ", uneven" : ""}: ${hiddenLines} lines with a comment the renderer hides; ` +
      `missed ${missed}, flagged ${flagged} where the renderer shows every comment`,
  );
  if (values.misses !== undefined) writeFileSync(values.misses, written.join("\n"));
  if (values.flags !== undefined) writeFileSync(values.flags, wrongly.join("\n"));
}
