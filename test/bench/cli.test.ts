import { execFile, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtBench } from "../helpers/built-scripts.js";
import { ROOT, runNpmScript } from "../helpers/process.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

/** The bench commands as people run them, with their exit codes and messages. */

/**
 * tsx's loader in the test's own node (`node --import tsx`, as `npm run dev` starts the server): tsx's CLI
 * is a second node process that only waits on the first, half the start-up of every run here. The first
 * test runs its bench so, from source, as people do.
 */
const TSX = ["--import", "tsx"];

/**
 * The other tests run each bench's bundle, built from the same sources before the tests
 * (test/helpers/built-scripts.ts): under tsx a bench took 0.7-1.2 s of CPU to print its usage, bundled
 * 0.2-0.3 s, and this file runs some 50.
 */
function command(script: string, from: "source" | "bundle"): string[] {
  return from === "source" ? [...TSX, path.join(ROOT, "bench", script)] : [builtBench(script)];
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function bench(
  script: string,
  args: string[],
  env: Readonly<Record<string, string>> = {},
  from: "source" | "bundle" = "bundle",
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...command(script, from), ...args],
      { cwd: ROOT, timeout: 60_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs a bench command whose reader has gone before it prints a line, as `… | head -0` leaves it. */
function benchIntoClosedPipe(script: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...command(script, "bundle"), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout: "", stderr });
    });
  });
}

let tree: TempTree;
const file = (name: string) => path.join(tree.dir, name);

beforeAll(async () => {
  tree = await makeTree({
    "corpus/tools/hammer/SKILL.md": skillMd("hammer", "Drive nails into wood and pull bent nails out."),
    "corpus/tools/saw/SKILL.md": skillMd("saw", "Cut planks and boards to length."),
    "corpus/garden/rake/SKILL.md": skillMd("rake", "Gather fallen leaves from a lawn."),
    "corpus/camp/lantern/SKILL.md": skillMd("lantern", "A light to take camping."),
    "corpus/camp/wick-kit/SKILL.md": skillMd(
      "wick-kit",
      "Repair a lantern with new wicks, lantern glass and lantern fuel.",
    ),
    "stems.json": JSON.stringify([
      { id: "q-5", query: "nailing", expected: ["tools/hammer"], difficulty: "easy" },
    ]),
    "lantern.json": JSON.stringify([
      { id: "q-4", query: "lanterns", expected: ["camp/lantern"], difficulty: "easy" },
    ]),
    "weak.json": JSON.stringify([
      { query: "bake sourdough bread", kind: "off-topic" },
      { query: "nails", kind: "one word" },
    ]),
    "queries.json": JSON.stringify([
      { id: "q-1", query: "pull a bent nail", expected: ["tools/hammer"], difficulty: "easy" },
      { id: "q-2", query: "leaves all over the lawn", expected: ["garden/rake"], difficulty: "easy" },
      { id: "q-3", query: "fix a wobbly chair leg", expected: ["tools/saw"], difficulty: "hard" },
    ]),
  });
});
afterAll(async () => {
  await tree.remove();
});

describe("npm run bench:search", () => {
  it("writes where each request's right skill ranked, with the ranking asked for, and counts weak results", async () => {
    const run = await bench(
      "search-quality.ts",
      [
        file("corpus"),
        file("queries.json"),
        "--ranking",
        "description=2.5,headings=0.75",
        "--ranks",
        file("ranks.json"),
        "--weak",
        file("weak.json"),
      ],
      {},
      "source",
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "weak requests, mean results shown: all (2) 0.50, 1 none; off-topic (1) 0.00, 1 none; one word (1) 1.00, 0 none\n" +
        "   1 shown: nails\n",
    );
    expect(JSON.parse(await readFile(file("ranks.json"), "utf8"))).toEqual({
      "q-1": 1,
      "q-2": 1,
      "q-3": null,
    });
  });

  // A missing file was Node's own words alone ("ENOENT: no such file or directory, open '…'"), without the
  // bench's name, and a queries file that is not JSON gave the parser's words without the file's name.
  it("says which file it cannot read or parse, after its name, exit 1", async () => {
    await writeFile(file("broken.json"), "[{");
    const cases: [string[], string][] = [
      [
        [file("corpus"), file("missing.json")],
        `bench:search: ${file("missing.json")} cannot be read: there is no such file (ENOENT)\n`,
      ],
      [[file("corpus"), file("broken.json")], `bench:search: ${file("broken.json")} is not JSON: `],
      [
        [file("missing"), file("queries.json")],
        `bench:search: Skills folder ${file("missing")} does not exist`,
      ],
    ];
    for (const [args, said] of cases) {
      const run = await bench("search-quality.ts", args);
      expect({ code: run.code, said: run.stderr.startsWith(said) }, run.stderr).toEqual({
        code: 1,
        said: true,
      });
    }
  });

  // Issue 26: the baseline's SQLite is WebAssembly now (better-sqlite3 compiled at every `npm ci`); it must
  // still be FTS5 with the porter tokenizer, the baseline docs/search.md quotes.
  it("ranks the SQLite FTS5 baseline beside its own figures, stemming as FTS5's porter does", async () => {
    const run = await bench("search-quality.ts", [file("corpus"), file("stems.json")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^FTS5 baseline +all \(1\) +1\.00 +1\.00 +1\.00 +1\.00 +1\.00 +1\.00$/m);
  });

  it("ranks with the settings given: a lighter name lets a description full of the word win", async () => {
    const shipped = await bench("search-quality.ts", [
      file("corpus"),
      file("lantern.json"),
      "--ranks",
      file("l1.json"),
    ]);
    const light = await bench("search-quality.ts", [
      file("corpus"),
      file("lantern.json"),
      "--ranking",
      // The name still weighs enough to reach the floor of faint matches, so the lantern stays in sight.
      "name=3,description=10",
      "--ranks",
      file("l2.json"),
    ]);
    expect([shipped.code, light.code]).toEqual([0, 0]);
    expect(JSON.parse(await readFile(file("l1.json"), "utf8"))).toEqual({ "q-4": 1 });
    expect(JSON.parse(await readFile(file("l2.json"), "utf8"))).toEqual({ "q-4": 2 });
  });

  it("finishes its work quietly when its reader has gone, as under `| head`", async () => {
    const run = await benchIntoClosedPipe("search-quality.ts", [
      file("corpus"),
      file("queries.json"),
      "--ranks",
      file("unread.json"),
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(await readFile(file("unread.json"), "utf8"))).toEqual({
      "q-1": 1,
      "q-2": 1,
      "q-3": null,
    });
  });

  // One test a case: each starts the script anew, which takes seconds on a busy machine.
  it.each<[string[], string]>([
    [["--ranks="], "--ranks needs a file"],
    [["--ranking="], "--ranking needs key=number settings"],
    [["--ranking", "desc=2"], 'bad ranking setting "desc=2"'],
    [["--ranks", "absent/ranks.json"], "its folder does not exist"],
    [["extra"], "unexpected argument: extra"],
  ])("refuses bad options before running, saying what was wrong: %j", async (args, message) => {
    const given = args.map((arg) => (arg === "absent/ranks.json" ? file(arg) : arg));
    const run = await bench("search-quality.ts", [file("corpus"), file("queries.json"), ...given]);
    expect({ code: run.code, said: run.stderr.includes(message) }).toEqual({ code: 2, said: true });
  });
});

describe("npm run bench", () => {
  it.each<[string[], string]>([
    [["--warm-up-seconds", "0"], 'bench: --warm-up-seconds "0" is not a whole number ≥ 1'],
    [["--only", "speed"], "bench: --only: unknown part speed (valid: throughput, scale, tokens, hostile)"],
    // A second copy is started in the throughput part alone: elsewhere it would be asked for and not measured.
    [
      ["--only", "scale", "--control"],
      "bench: --control measures a second copy in the throughput part only: add throughput to --only",
    ],
    [
      ["--start-order", "random"],
      'bench: --start-order: "random" is not one of alternate, this-first, other-first',
    ],
    // Written once every part had run: minutes in, in Node's words (ENOTDIR).
    [
      ["--out", "/dev/null/latest.json"],
      "bench: --out /dev/null/latest.json: /dev/null is a device where the path needs a folder; give another --out",
    ],
    // Node's own text, once: "Unknown option '--bogus'", no valid option named.
    [
      ["--bogus"],
      "bench: unknown option --bogus; valid: --only, --seconds, --sizes, --connections, --out, --update-docs, --compare, --control, --start-order, --cap-seconds, --warm-up-seconds, --corpus, --requests, --hostile-kind, --build, --help (-h)",
    ],
  ])(
    "refuses a mistaken option before it runs anything, with its message alone: %j",
    async (args, message) => {
      const run = await bench("index.ts", args);
      expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 2, stderr: message });
    },
  );
});

// `npm run bench` built dist/ first (`npm run build && …`): --help and a wrong option waited a minute on it.
describe("npm run bench's --help and a mistaken option", () => {
  it.each<[string[], number, RegExp]>([
    [["--help"], 0, /^usage: npm run bench -- /m],
    [["--bogus"], 2, /^bench: unknown option --bogus; valid: /m],
  ])("answer without building dist/: %j", async (args, code, said) => {
    const run = await runNpmScript("bench", args);
    expect({ code: run.code, built: run.built }).toEqual({ code, built: false });
    expect(`${run.stdout}${run.stderr}`).toMatch(said);
  });
});

describe("npm run bench -- --only tokens", () => {
  // It started each catalog's server with the load shedding of production: on a busy machine the
  // 50,000-skill catalog's server answered "Server overloaded: retry in 5 seconds." and the run died.
  // Here the environment sheds every request once the server has sampled its memory (SHED_RSS_MB=1, a
  // second after it starts), and a catalog of many packs, each asked about, keeps the server that long.
  it("counts the tokens of each catalog however the environment sets load shedding", async () => {
    const packs = await makeTree(
      Object.fromEntries(
        Array.from({ length: 400 }, (_, index) => [
          `pack-${index}/tools/tool-${index}/SKILL.md`,
          skillMd(`tool-${index}`, `Tool number ${index} of many.`),
        ]),
      ),
    );
    try {
      const out = file("tokens.json");
      const run = await bench(
        "index.ts",
        ["--only", "tokens", "--sizes", "20", "--corpus", packs.dir, "--out", out],
        { SHED_RSS_MB: "1" },
      );
      expect(run.code, run.stderr).toBe(0);
      const { tokens } = JSON.parse(await readFile(out, "utf8")) as {
        tokens: { catalog: string; packs: number }[];
      };
      expect(tokens.map(({ catalog, packs }) => `${catalog} ${packs}`)).toEqual([
        "examples 2",
        "corpus 400",
        "synthetic-20 1",
      ]);
    } finally {
      await packs.remove();
    }
  });
});

describe("npm run bench:compare-ranks", () => {
  it("counts the requests ranked higher and lower, over files joined by commas", async () => {
    await writeFile(file("a1.json"), JSON.stringify({ "q-1": 4, "q-2": null }));
    await writeFile(file("a2.json"), JSON.stringify({ "q-3": 1 }));
    await writeFile(file("b1.json"), JSON.stringify({ "q-1": 2, "q-2": null, "q-3": 3 }));
    const run = await bench("compare-ranks.ts", [`${file("a1.json")},${file("a2.json")}`, file("b1.json")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "1 ranked higher, 1 lower, 1 the same (a miss counts as 11th)\nhigher: q-1 4→2\nlower: q-3 1→3\n",
    );
  });

  it("refuses a request in two files of one side, and a missing argument", async () => {
    const twice = await bench("compare-ranks.ts", [`${file("a1.json")},${file("a1.json")}`, file("b1.json")]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("request q-1 is in an earlier file too");
    const usage = await bench("compare-ranks.ts", [file("a1.json")]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: npm run bench:compare-ranks");
  });
});

describe("npm run bench:audit", () => {
  it("times the audit of each hostile text at each size asked, in wall and CPU time, and refuses a size that is no number", async () => {
    const run = await bench("audit-hostile.ts", ["--sizes", "0.01,0.02", "--only", "link starts"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| Text"));
    expect(rows.map((row) => row.split(" | ")[0])).toEqual(["| Markdown link starts", "| HTML link starts"]);
    for (const row of rows)
      expect(row).toMatch(
        /^\| [^|]+ \| (?:\d+\.\d\d s \(\d+ ms\/MiB\), CPU \d+\.\d\d s \(\d+ ms\/MiB\) \| ){2}\d+ \|$/,
      );
    const wrong = await bench("audit-hostile.ts", ["--sizes", "big"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('bench:audit: --sizes "big" is not a number above 0');
  });
});

describe("npm run bench:linear", () => {
  it("times each rule asked at each size, with the ratio to the size before", async () => {
    const run = await bench("linear.ts", ["--sizes", "1,2", "--only", "of slashes"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split("\n").filter((line) => /^\| \w/.test(line) && !line.startsWith("| name"));
    expect(rows.map((row) => row.split(" | ").slice(0, 2).join(" | "))).toEqual(
      ["filesInFolder", "callByPath", "callBySkillName", "skillAtPath", "findSkillAsWritten"].flatMap(
        (rule) => {
          const name =
            rule === "filesInFolder" ? "folder path" : rule === "findSkillAsWritten" ? "name" : "path";
          return ["1", "2"].map((size) => `| request: ${name} of slashes (${rule}) | ${size} KiB`);
        },
      ),
    );
    for (const [index, row] of rows.entries())
      expect(row).toMatch(index % 2 === 0 ? /\| \d+\.\d \| {2}\|$/ : /\| \d+\.\d \| \d+\.\d \|$/);
  });
});

describe("npm run bench:parts", () => {
  it("gives each part of a request its CPU, the bytes its scavenges kept and their time", async () => {
    const run = await bench("request-parts.ts", [file("corpus"), "40", "1"]);
    expect(run.code, run.stderr).toBe(0);
    const [title, header, ...rows] = run.stdout.trim().split("\n");
    expect(title).toContain(
      "(5 skills), a request: CPU the least of 1 rounds of 40, scavenges over them all:",
    );
    expect(header?.split(/\s{2,}/).slice(1)).toEqual(["CPU µs", "promoted KB", "scavenges µs"]);
    expect(rows.map((row) => row.split(/\s{2,}/)[0])).toContain(
      "2025: the endpoint (era told, answered, serialized)",
    );
    // The search within the pack of most skills, alone and with a word beginning a name word there.
    expect(rows.filter((row) => row.startsWith("the search itself, within "))).toHaveLength(2);
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row).toMatch(/ \d+\.\d {5,}\d+\.\d\d {5,}\d+\.\d$/);
  });
});

// "--help" was an unknown option (Node's text), or read as a count or a folder (a run on NaN skills, "Skills
// folder …/--help does not exist"); a word given as a count was NaN.
describe("each bench's command line", () => {
  it.each<[string, string]>([
    ["index.ts", "usage: npm run bench -- [--only throughput,scale,tokens] [--seconds 3]"],
    ["search-quality.ts", "usage: npm run bench:search -- <corpus folder>"],
    ["audit-hostile.ts", "usage: npm run bench:audit --"],
    ["linear.ts", "usage: npm run bench:linear --"],
    ["search-speed.ts", "usage: npm run bench:search-speed -- [skills=10000] [queries=3000]"],
    ["request-parts.ts", "usage: npm run bench:parts -- [catalog folder]"],
    ["compare-ranks.ts", "usage: npm run bench:compare-ranks -- <before.json"],
    ["audit-commonmark.ts", "usage: npx tsx bench/audit-commonmark.ts [--count 40000]"],
    ["large-reads.ts", "usage: npx tsx bench/large-reads.ts [--parallel 32]"],
    ["line-count-memory.ts", "usage: node --expose-gc --import tsx bench/line-count-memory.ts [--mib 16]"],
    ["repin-review-memory.ts", "usage: npx tsx bench/repin-review-memory.ts [--files 40]"],
    ["repin-review-lists.ts", "usage: npx tsx bench/repin-review-lists.ts"],
    ["repin-review-moves.ts", "usage: npx tsx bench/repin-review-moves.ts [--skills 2000] [--files 5]"],
    ["fetch-git.ts", "usage: npx tsx bench/fetch-git.ts [--sources 12] [--runs 3] [--root <checkout>]"],
    [
      "fetch-store.ts",
      "usage: npx tsx bench/fetch-store.ts [--mib 64] [--bound 4] [--runs 3] [--fetches 60] [--base 0]",
    ],
    ["sync-latency.ts", "usage: npx tsx bench/sync-latency.ts [--skills 24] [--latency 50]"],
    ["sync-memory.ts", "usage: npx tsx bench/sync-memory.ts [--skills 8]"],
    ["refused-flood.ts", "usage: npm run build && npm run bench:refused-flood -- [--clients 200]"],
  ])("%s prints its usage on --help and runs nothing", async (script, usage) => {
    const run = await bench(script, ["--help"]);
    expect({ code: run.code, stdout: run.stdout.startsWith(usage), stderr: run.stderr }).toEqual({
      code: 0,
      stdout: true,
      stderr: "",
    });
  });

  it.each<[string, string[], string]>([
    // These three said what was wrong without the bench's name, as no other command does.
    ["search-quality.ts", ["--bogus"], "bench:search: unknown option --bogus; valid: --typos, --asked-by,"],
    ["search-quality.ts", [], "bench:search: give the corpus folder and the queries file"],
    ["search-quality.ts", ["corpus"], "bench:search: give the queries file after the corpus folder corpus"],
    // These read no --help, died on an unknown option with a stack trace (exit 1), and ran on NaN for a word.
    [
      "large-reads.ts",
      ["--bogus"],
      "bench/large-reads: unknown option --bogus; valid: --parallel, --megabytes, --root, --help (-h)",
    ],
    [
      "line-count-memory.ts",
      ["--width", "wide"],
      'bench/line-count-memory: --width "wide" is not a whole number ≥ 1',
    ],
    [
      "repin-review-memory.ts",
      ["--mib", "0"],
      'bench/repin-review-memory: --mib "0" is not a number above 0',
    ],
    [
      "sync-latency.ts",
      ["--skills", "many"],
      'bench/sync-latency: --skills "many" is not a whole number ≥ 1',
    ],
    ["sync-memory.ts", ["extra"], 'bench/sync-memory: unexpected argument "extra": only options are taken'],
    [
      "refused-flood.ts",
      ["--clients", "many"],
      'bench:refused-flood: --clients "many" is not a whole number ≥ 1',
    ],
    [
      "repin-review-lists.ts",
      ["--bogus"],
      "bench/repin-review-lists: unknown option --bogus; valid: --help (-h)",
    ],
    // Node's own words: "Unknown option '--bogus'. To specify a positional argument starting with a '-' …".
    ["audit-commonmark.ts", ["--bogus"], "bench:audit-commonmark: unknown option --bogus; valid: --count,"],
    [
      "audit-hostile.ts",
      ["--bogus"],
      "bench:audit: unknown option --bogus; valid: --sizes, --only, --help (-h)",
    ],
    ["linear.ts", ["--cap-ms", "soon"], 'bench:linear: --cap-ms "soon" is not a number above 0'],
    ["search-speed.ts", ["many"], 'bench:search-speed: "many" is not a whole number ≥ 1'],
    ["request-parts.ts", ["examples/skills", "0"], 'bench:parts: "0" is not a whole number ≥ 1'],
    // Read as the catalog folder ("Skills folder …/--bogus does not exist"), exit 1.
    ["request-parts.ts", ["--bogus"], "bench:parts: unknown option --bogus; valid: --help (-h)"],
    // These printed the usage alone.
    [
      "compare-ranks.ts",
      ["--bogus", "a.json"],
      "bench:compare-ranks: unknown option --bogus; valid: --help (-h)",
    ],
    ["compare-ranks.ts", ["a.json"], "bench:compare-ranks: give the ranks before and the ranks after"],
    [
      "compare-ranks.ts",
      ["a.json", "b.json", "c.json"],
      "bench:compare-ranks: two files (or comma lists of files) only; also given: c.json",
    ],
  ])("%s refuses %j with one line and the usage, exit 2", async (script, args, message) => {
    const run = await bench(script, args);
    expect({
      code: run.code,
      said: run.stderr.startsWith(message),
      usage: run.stderr.includes("usage: "),
    }).toEqual({ code: 2, said: true, usage: true });
  });
});
