/** The work of `npm run bench:linear` (see linear.ts), loaded once its command line is read. */
import path from "node:path";
import { withoutCredentials } from "../scripts/fetch-skills/errors.js";
import { locateSources } from "../scripts/fetch-skills/layout.js";
import { parseManifest } from "../scripts/fetch-skills/manifest.js";
import { claimOfEveryTask } from "../src/audit/routing.js";
import {
  filesInFolder,
  loadCatalog,
  meantFilePath,
  readFrontmatterFields,
  readSkillDocument,
  yaml11Readings,
} from "../src/catalog/index.js";
import { holdsMoreAfterValue } from "../src/json-rpc/index.js";
import { callByPath, callBySkillName, findSkillAsWritten, skillAtPath } from "../src/mcp/references.js";
import { keyOfUri } from "../src/mcp/skill-uris.js";
import { forEachWord, KeptStems, stemsOf } from "../src/preview/words.js";
import { buildIndex } from "../src/search/index.js";
import { words } from "../src/search/scanner.js";
import { compoundEnd, foldedSpelling, withinMarksLimit } from "../src/search/terms.js";
import { visible } from "../src/shared/index.js";
import { citedPaths } from "../src/sync/citations.js";
import { repeated } from "./hostile-text.js";
import { ROOT } from "./processes.js";

const KIB = 1024;

/** One rule over one kind of hostile input: `make` builds the input of about `size` characters. */
interface LinearCase {
  readonly name: string;
  readonly make: (size: number) => string;
  readonly run: (input: string) => unknown;
  /** Its own sizes in KiB, for a rule whose input is refused past a limit (a frontmatter past 64 KiB). */
  readonly sizes?: readonly number[];
}

/**
 * A frontmatter is read up to 64 KiB and 5,000 YAML tokens: past that, only its refusal would be timed. A
 * key of this bench's takes 12 characters and about 6 tokens.
 */
const FRONTMATTER_SIZES = [4, 8, 16, 32];
const FRONTMATTER_KEYS_SIZES = [1, 2, 4, 8];

/** The examples' catalog and index: what the request rules look paths and names up in. */
function requestCases(): LinearCase[] {
  const { catalog } = loadCatalog(path.join(ROOT, "examples/skills"));
  const scope = catalog.everything;
  const index = buildIndex(scope.skills, readSkillDocument);
  const [pack] = scope.packs;
  if (pack === undefined) throw new Error("examples/skills holds no pack");
  const slashesThenLetter = (size: number) => `a${"/".repeat(size - 2)}x`;
  return [
    // read_skill and read_pack_file: a file or folder path, its trailing slashes trimmed.
    {
      name: "request: folder path of slashes (filesInFolder)",
      make: slashesThenLetter,
      run: (text) => filesInFolder(new Map(), text),
    },
    {
      name: "request: path of slashes (callByPath)",
      make: slashesThenLetter,
      run: (text) => callByPath(scope, text, "SKILL.md"),
    },
    {
      name: "request: path of slashes (callBySkillName)",
      make: slashesThenLetter,
      run: (text) => callBySkillName(scope, text, "SKILL.md"),
    },
    {
      name: "request: path of slashes (skillAtPath)",
      make: slashesThenLetter,
      run: (text) => skillAtPath(pack, text),
    },
    {
      name: "request: path of dots and slashes (meantFilePath)",
      make: (size) => repeated("./", size),
      run: (text) => meantFilePath(text, ["SKILL.md"]),
    },
    // A prompt's name, a pack argument or a query taken for a skill's name.
    {
      name: "request: name of colons (findSkillAsWritten)",
      make: (size) => repeated("a:", size),
      run: (text) => findSkillAsWritten(scope, text),
    },
    {
      name: "request: name of slashes (findSkillAsWritten)",
      make: (size) => repeated("a/", size),
      run: (text) => findSkillAsWritten(scope, text),
    },
    {
      name: "request: resource URI of segments (keyOfUri)",
      make: (size) => `skill://p${repeated("/%41", size)}`,
      run: keyOfUri,
    },
    // list_skills: a query.
    {
      name: "request: query of unknown words (search)",
      make: (size) => repeated("zqx ", size),
      run: (text) => index.search(text, scope, 10),
    },
    {
      name: "request: query of one compound (search)",
      make: (size) => repeated("ab-", size),
      run: (text) => index.search(text, scope, 10),
    },
    {
      name: "request: query of one long word (search)",
      make: (size) => "q".repeat(size),
      run: (text) => index.search(text, scope, 10),
    },
    // A stdio line read for what follows a JSON value.
    {
      name: "request: JSON of open brackets",
      make: (size) => "[".repeat(size),
      run: (text) => holdsMoreAfterValue(Buffer.from(text)),
    },
    {
      name: "request: JSON of open strings",
      make: (size) => `{${repeated('"a\\"', size)}`,
      run: (text) => holdsMoreAfterValue(Buffer.from(text)),
    },
  ];
}

/** Rules over a skill's files that the audit does not hold: the search's words, the preview's, the frontmatter. */
const SKILL_TEXT_CASES: readonly LinearCase[] = [
  { name: "skill text: words of one compound (search)", make: (size) => repeated("a-", size), run: words },
  {
    name: "skill text: compound of accented parts (search)",
    make: (size) => repeated("é-", size),
    run: words,
  },
  { name: "skill text: apostrophes in a word (search)", make: (size) => repeated("a’", size), run: words },
  // The same on the Unicode path (a mark at its end), where folding reads each `’` as `'`.
  {
    name: "skill text: apostrophes in a word ending in a mark (search)",
    make: (size) => `${repeated("a’", size)}a\u0301`,
    run: words,
  },
  {
    name: "skill text: soft hyphens in a word (search)",
    make: (size) => repeated("a\u00AD", size),
    run: words,
  },
  {
    name: "skill text: compound ending in a mark (search)",
    make: (size) => `${repeated("a-", size)}a\u0301`,
    run: words,
  },
  { name: "skill text: Chinese run (search)", make: (size) => repeated("数据", size), run: words },
  {
    name: "skill text: astral words (search)",
    make: (size) => repeated("\u{1D49C}\u{1D49E} ", size),
    run: words,
  },
  // Astral letters that NFKC leaves as they are, and lowercasing changes (a Deseret capital).
  {
    name: "skill text: astral words of another script (search)",
    make: (size) => repeated("\u{10400}\u{10428}\u{10429} ", size),
    run: words,
  },
  { name: "skill text: emoji between words (search)", make: (size) => repeated("😀 ", size), run: words },
  // sync: the pack files a skill's text cites.
  {
    name: "skill text: one path of dots and slashes (sync citations)",
    make: (size) => `${repeated("a/", size / 2)}b${".".repeat(size / 2)}`,
    run: (text) => citedPaths(text, 64),
  },
  {
    name: "skill text: combining marks (folding)",
    make: (size) => `a${repeated("\u0301\u0323", size)}`,
    run: foldedSpelling,
  },
  {
    name: "skill text: letters and their accents apart (folding)",
    make: (size) => repeated("e\u0301", size),
    run: foldedSpelling,
  },
  { name: "skill text: sharp s (folding)", make: (size) => repeated("ß", size), run: foldedSpelling },
  // The marks limit alone: its old expression took 30 steps a mark over runs of exactly 30.
  {
    name: "skill text: runs of 30 marks (marks limit)",
    make: (size) => repeated(`a${"\u0301".repeat(30)}`, size),
    run: withinMarksLimit,
  },
  {
    name: "skill text: astral marks (marks limit)",
    make: (size) => repeated("\u{1D167}", size),
    run: withinMarksLimit,
  },
  {
    name: "skill text: compound of astral letters and marks (terms)",
    make: (size) => repeated("\u{1D49C}\u{1D167}", size),
    run: (text) => compoundEnd(text, 0, true),
  },
  {
    name: "skill text: dotted word (preview)",
    make: (size) => repeated("a.", size),
    run: (text) => forEachWord(text, () => undefined),
  },
  {
    name: "skill text: apostrophes (preview stems)",
    make: (size) => repeated("a'", size),
    run: (text) => stemsOf(text, new KeptStems()),
  },
  {
    name: "skill text: invisible characters (visible)",
    make: (size) => repeated("\u200B", size),
    run: visible,
  },
  {
    name: "skill text: description of punctuation (routing)",
    make: (size) => repeated("a, ", size),
    run: claimOfEveryTask,
  },
  {
    name: "skill text: frontmatter of keys (YAML 1.1 readings)",
    make: (size) =>
      `---\n${Array.from({ length: Math.ceil(size / 12) }, (_, i) => `k${i}: yes\n`).join("")}---\n`,
    run: yaml11Readings,
    sizes: FRONTMATTER_KEYS_SIZES,
  },
  {
    name: "skill text: frontmatter of one long value",
    make: (size) => `---\nname: a\ndescription: ${repeated("a ", size)}\n---\n`,
    run: readFrontmatterFields,
    sizes: FRONTMATTER_SIZES,
  },
];

const MANIFEST_SOURCE =
  '[[source]]\nname = "n"\nrepo = "https://example.com/r.git"\nref = "0123456789abcdef0123456789abcdef01234567"\n';

const SCRIPT_CASES: readonly LinearCase[] = [
  // fetch-skills: every key's line is looked up for messages.
  {
    name: "skills.toml: many keys (layout)",
    make: (size) => Array.from({ length: Math.ceil(size / 12) }, (_, i) => `k${i} = 1\n`).join(""),
    run: locateSources,
  },
  {
    name: "skills.toml: many sources (parse)",
    make: (size) =>
      Array.from({ length: Math.ceil(size / MANIFEST_SOURCE.length) }, (_, i) =>
        MANIFEST_SOURCE.replace('"n"', `"n${i}"`),
      ).join(""),
    run: (text) => parseManifest(text, "skills.toml"),
  },
  {
    name: "git output: schemes without credentials",
    make: (size) => repeated("a://b:c", size),
    run: withoutCredentials,
  },
  {
    name: "git output: addresses never ending in @",
    make: (size) => `https://${"a".repeat(size)}`,
    run: withoutCredentials,
  },
];

/**
 * The least CPU time of a few runs, in ms: this process's CPU, which a busy machine's other work does not
 * add to as it does to wall time, and the least of several turns, which leaves out a turn that paid for a
 * collection. The garbage of the step before is collected first. Short runs are repeated until they add up
 * to 50 ms (at most 10 turns).
 */
function timed(run: (input: string) => unknown, input: string): number {
  globalThis.gc?.();
  let best = Number.POSITIVE_INFINITY;
  let spent = 0;
  for (let turn = 0; turn < 10 && (turn < 3 || spent < 50); turn++) {
    const before = process.cpuUsage();
    try {
      run(input);
    } catch {
      // A rule may refuse the input (parseManifest's problems): what it costs to say so is measured.
    }
    const { user, system } = process.cpuUsage(before);
    const ms = (user + system) / 1000;
    best = Math.min(best, ms);
    spent += ms;
    if (ms > 250) break;
  }
  return best;
}

/** The cases whose name holds `only`, all of them when it is not given. */
export function casesNamedLike(only: string | undefined): LinearCase[] {
  return [...requestCases(), ...SKILL_TEXT_CASES, ...SCRIPT_CASES].filter(
    (item) => only === undefined || item.name.includes(only),
  );
}

/** Times each case at each size (KiB) of `sizes`, or its own, up to the first step over `capMs`. */
export function main(cases: readonly LinearCase[], sizes: readonly number[], capMs: number): void {
  console.log(
    `Rules over hostile text, Node ${process.version}: least CPU ms of several runs; ratio to the size before\n`,
  );
  console.log("| name | n | ms | ratio |");
  console.log("|---|---:|---:|---:|");
  for (const { name, make, run, sizes: own } of cases) {
    const steps = own ?? sizes;
    // Once at the smallest size first, so that the first step is not the compiler's.
    timed(run, make((steps[0] ?? 1) * KIB));
    let before: number | undefined;
    for (const size of steps) {
      const input = make(size * KIB);
      const ms = timed(run, input);
      const ratio = before === undefined ? "" : (ms / Math.max(before, 0.01)).toFixed(1);
      const over = ms > capMs;
      console.log(
        `| ${name} | ${size} KiB | ${over ? `> ${capMs} (${ms.toFixed(0)})` : ms.toFixed(1)} | ${ratio} |`,
      );
      if (over) break;
      before = ms;
    }
  }
}
