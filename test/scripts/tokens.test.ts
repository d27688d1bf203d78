import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtScript } from "../helpers/built-scripts.js";
import { ROOT } from "../helpers/process.js";

const run = promisify(execFile);
/** As `npm run tokens` runs it, from source: the first test's way. */
const TSX = ["--import", "tsx", "scripts/tokens.ts"];
/**
 * Its bundle, built from the same sources before the tests (test/helpers/built-scripts.ts), for the other
 * tests: a report on the bundled examples took 3.8 s of CPU under tsx, 1.3 s bundled.
 */
const BUILT = [builtScript("scripts/tokens.ts")];
let dir: string;
let first: string;
let second: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tokens-"));
  first = join(dir, "first.json");
  second = join(dir, "second.json");
  await writeFile(first, JSON.stringify([{ query: "clean a csv file", expected: ["clean-csv"] }]));
  await writeFile(second, JSON.stringify([{ query: "pick a color palette", expected: ["color-palettes"] }]));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function tokens(args: string[], script = BUILT): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [...script, ...args], { cwd: ROOT, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("npm run tokens", () => {
  it("reports the coverage of each query set given with its own --queries", async () => {
    const { code, stdout } = await tokens(["examples/skills", "--queries", first, "--queries", second], TSX);
    expect(code).toBe(0);
    expect(stdout).toContain(`coverage ${first}`);
    expect(stdout).toContain(`coverage ${second}`);
  });

  // The coverage was of the instructions and tools/list together, which no host that shows one of them
  // alone sees: a text could lose what such a host needs and the figure would not move.
  it("reports the coverage of what hosts that show only the instructions or only the tools see", async () => {
    const { code, stdout } = await tokens(["examples/skills", "--queries", first]);
    expect(code).toBe(0);
    const [, table = ""] = stdout.split("instructions only / tools/list only / both / steering line\n");
    expect(table).toMatch(/^scope\tcoverage /);
    expect(table).toMatch(/^workflows\t\d\.\d\d \/ \d\.\d\d \/ 1\.00 \/ \d\.\d\d$/m);
  });

  // The steering line (--steering) is read on every turn from CLAUDE.md, AGENTS.md or a system prompt, yet
  // no figure said what it covered or cost: its words could turn to filler with nothing to show it.
  it("reports the tokens and the cue coverage of the steering line of each scope", async () => {
    const examples = "bench/queries/examples.json";
    const { code, stdout } = await tokens(["examples/skills", "--queries", first, "--queries", examples]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^scope\tbytes\ttokens\tsteering tokens\tcoverage /m);
    expect(stdout).toMatch(/^workflows\t\d+\t\d+\t\d+\t1\.00 \(1\)\t\d\.\d\d \(10\)$/m);
    // The one request, to clean a csv file, shares `clean` and `csv` with the line's `clean-csv`.
    expect(stdout).toMatch(/^workflows\t\d\.\d\d \/ \d\.\d\d \/ 1\.00 \/ 1\.00\t(\d\.\d\d( \/ )?){4}$/m);
  });

  it("refuses a second query set listed after one --queries, instead of leaving it out of the report", async () => {
    const { code, stdout, stderr } = await tokens(["examples/skills", "--queries", first, second]);
    expect(code).toBe(2);
    expect(stderr).toContain(`"${second}"`);
    expect(stderr).toContain("--queries");
    expect(stdout).toBe("");
  });

  // An unknown option got Node's text on placing a positional after `--` and exit 1, where every other
  // script names the valid options, prints its usage and exits 2.
  it("refuses an unknown option with the valid ones, then the usage, and exit 2", async () => {
    const { code, stdout, stderr } = await tokens(["--querys", "q.json"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /^tokens: unknown option --querys; valid: --queries, --catalog-preview, --help \(-h\)\n\nUsage: npm run tokens/,
    );
  });

  // `--help` was refused as an unknown option, unlike every other script's.
  it("prints its usage on --help", async () => {
    const { code, stdout } = await tokens(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run tokens -- \[catalog folder\]/);
    expect(stdout).toContain("--catalog-preview on|off");
  });

  // In the words of every other choice (it said "is not on or off").
  it("refuses a --catalog-preview that is neither on nor off, as a wrong command line", async () => {
    const { code, stderr } = await tokens(["--catalog-preview", "maybe"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^tokens: --catalog-preview "maybe" is not one of on, off\n/);
    // Given no value, it said only that it needs one, not which.
    const none = await tokens(["--catalog-preview"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^tokens: --catalog-preview needs a value \(one of on, off\)\n/);
  });

  // A missing query set failed only after the first table was printed, with no word of which option.
  it("refuses a query set it cannot read before printing anything", async () => {
    const missing = join(dir, "missing.json");
    const { code, stdout, stderr } = await tokens(["examples/skills", "--queries", missing]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(`tokens: --queries ${missing} cannot be read: there is no such file (ENOENT)\n`);
  });

  // A JSON file of another shape (package.json given by mistake) failed with "rows.flatMap is not a function".
  it("refuses a query set that is not a list of requests, saying which entry and the form it needs", async () => {
    const notList = join(dir, "not-a-list.json");
    const noExpected = join(dir, "no-expected.json");
    await writeFile(notList, JSON.stringify({ name: "skills-mcp" }));
    await writeFile(noExpected, JSON.stringify([{ query: "clean a csv file" }]));
    const form = '[{"query": "...", "expected": ["pack/name"]}]';
    for (const [file, what] of [
      [notList, " is not a JSON list of requests"],
      [noExpected, ": request 1 is not"],
    ] as const) {
      const { code, stdout, stderr } = await tokens(["examples/skills", "--queries", file]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain(`tokens: --queries ${file}${what}`);
      expect(stderr).toContain(form);
    }
  });
});
