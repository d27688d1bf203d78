import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BenchResults, formatMarkdown, updateDocs } from "../../bench/report.js";
import { ROOT } from "../helpers/process.js";
import { TEST_MACHINE as MACHINE } from "./machine.js";

/** What `npm run bench -- --only tokens` gathers: one row of token counts and nothing else. */
const TOKENS_ONLY: BenchResults = {
  machine: MACHINE,
  seconds: 42,
  tokens: [
    {
      catalog: "examples",
      skills: 8,
      packs: 2,
      toolsList: 700,
      instructions: 150,
      listPacks: 110,
      listSkillsPackMedian: 120,
      listSkillsPackMax: 190,
      costs: { toolsList: 700, tools: 4, instructions: 150, listPacks: 110, listSkillsByPack: [] },
    },
  ],
};

const BEGIN = "<!-- bench:begin (written by npm run bench -- --update-docs) -->\n";
const END = "<!-- bench:end -->";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-report-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The generated part of a docs/performance.md, between its markers. */
function generatedPart(text: string): string {
  return text.slice(text.indexOf(BEGIN) + BEGIN.length, text.indexOf(END));
}

/** The paragraphs of a generated part (tables, headings, lines) that begin with `start`. */
function paragraphs(part: string, start: string): string[] {
  return part
    .split("\n\n")
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.startsWith(start));
}

describe("npm run bench -- --update-docs", () => {
  // It rewrote the whole part from the parts run: `--only tokens` left docs/performance.md without its
  // throughput and scale tables.
  it("replaces the sections it measured in a copy of docs/performance.md, and keeps the others as they were", async () => {
    const file = path.join(dir, "performance.md");
    await copyFile(path.join(ROOT, "docs/performance.md"), file);
    const before = await readFile(file, "utf8");
    const written = generatedPart(before);
    const tablesOf = (part: string) => paragraphs(part, "| ");
    expect(tablesOf(written).length).toBeGreaterThan(3);

    expect(updateDocs(TOKENS_ONLY, file)).toBe(file);
    const after = await readFile(file, "utf8");
    const updated = generatedPart(after);
    // Around the generated part, nothing changed.
    expect(after.slice(0, after.indexOf(BEGIN))).toBe(before.slice(0, before.indexOf(BEGIN)));
    expect(after.slice(after.indexOf(END))).toBe(before.slice(before.indexOf(END)));
    // Every table but the tokens one is kept as it was, in its place; the tokens one is this run's.
    const tokensTable = paragraphs(formatMarkdown(TOKENS_ONLY), "| ");
    expect(tablesOf(updated)).toEqual([
      ...tablesOf(written).filter((table) => !table.startsWith("| catalog |")),
      ...tokensTable,
    ]);
    expect(paragraphs(updated, "### ")).toEqual(paragraphs(written, "### "));
    // This run's line on top; each kept section says, below its heading, the run that measured it.
    expect(updated.trim().split("\n\n")[0]).toMatch(
      /^Measured 2030-01-02 on Test CPU, .*; the bench took 42 s\.$/,
    );
    const sectionOf = (part: string, heading: string) =>
      part.split(/^(?=### )/m).find((chunk) => chunk.startsWith(heading)) ?? "";
    const measuredLineOf = (part: string, heading: string) => sectionOf(part, heading).split("\n\n")[1];
    for (const heading of ["### Throughput and latency", "### Scale"]) {
      // Its own line if it had one, else the line that told of the whole part.
      const before = measuredLineOf(written, heading)?.startsWith("Measured ")
        ? measuredLineOf(written, heading)
        : written.trim().split("\n\n")[0];
      expect(before).toMatch(/^Measured /);
      expect(measuredLineOf(updated, heading)).toBe(before);
    }
  });

  it("gives a kept section the line that told when the whole part was measured", async () => {
    const file = path.join(dir, "two-parts.md");
    await writeFile(
      file,
      `${BEGIN}Measured long ago.\n\n### Scale: synthetic catalogs\n\n| old scale |\n\n### Tokens (o200k)\n\nold\n${END}\n`,
    );
    updateDocs(TOKENS_ONLY, file);
    const [top, tokens] = formatMarkdown(TOKENS_ONLY).split(/\n\n(?=### )/);
    expect(await readFile(file, "utf8")).toBe(
      `${BEGIN}${top}\n\n### Scale: synthetic catalogs\n\nMeasured long ago.\n\n| old scale |\n\n${tokens}\n${END}\n`,
    );
  });

  it("rewrites the whole part when it measured every section there", async () => {
    const file = path.join(dir, "tokens-only.md");
    await writeFile(
      file,
      `# Doc\n\n${BEGIN}Measured long ago.\n\n### Tokens (o200k)\n\nold\n${END}\n\nAfter.\n`,
    );
    updateDocs(TOKENS_ONLY, file);
    expect(await readFile(file, "utf8")).toBe(
      `# Doc\n\n${BEGIN}${formatMarkdown(TOKENS_ONLY)}\n${END}\n\nAfter.\n`,
    );
  });
});
