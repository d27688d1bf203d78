/**
 * A SKILL.md of distinct words (up to 1 MiB of them) added each word to the index, its postings and its
 * spelling: some 25 MB of the server's memory for one skill. A document now holds at most
 * TERMS_A_DOCUMENT distinct terms; the rest of its words are left out, with a warning naming the skill.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Catalog, loadCatalog, readSkillDocument, type Skill } from "../../src/catalog/index.js";
import { buildIndex, indexFromPart, indexToPart, TERMS_A_DOCUMENT } from "../../src/search/index.js";
import { loadStartupConfig, prepare } from "../../src/startup/index.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

/** A made-up word the stemmer leaves alone, one per number: the number in letters a to z. */
function madeUp(number: number): string {
  const letters = [...number.toString(26)].map((digit) =>
    String.fromCharCode(97 + Number.parseInt(digit, 26)),
  );
  return `zq${letters.join("")}x`;
}

/** A SKILL.md of `count` distinct made-up words after a first line of real ones. */
function flood(count: number): string {
  const words = Array.from({ length: count }, (_, i) => madeUp(i)).join(" ");
  return skillMd(
    "word-flood",
    "Floods the search index with made-up words.",
    `Quetzalcoatl appears first.\n\n${words}\n`,
  );
}

const ORDINARY = {
  "p/ordinary/SKILL.md": skillMd("ordinary", "Bake sourdough bread.", "Knead the dough, then proof it."),
};

async function catalogWith(floodWords: number): Promise<{ tree: TempTree; catalog: Catalog }> {
  const tree = await makeTree({ ...ORDINARY, "p/word-flood/SKILL.md": flood(floodWords) });
  return { tree, catalog: loadCatalog(tree.dir).catalog };
}

/** The bytes of an index saved: its arrays as they are in memory. */
function savedBytes(catalog: Catalog): number {
  const index = buildIndex(catalog.everything.skills, readSkillDocument);
  return indexToPart(index).reduce((sum, piece) => sum + piece.byteLength, 0);
}

describe("a SKILL.md of more distinct words than a document may hold", () => {
  const WORDS = 5 * TERMS_A_DOCUMENT;
  let tree: TempTree;
  let catalog: Catalog;
  const full: string[] = [];

  beforeAll(async () => {
    ({ tree, catalog } = await catalogWith(WORDS));
  });
  afterAll(() => tree.remove());

  const found = (query: string) =>
    buildIndex(catalog.everything.skills, readSkillDocument, undefined, (skill: Skill) => full.push(skill.id))
      .search(query, catalog.everything, 10)
      .skills.map((skill) => skill.name);

  it("is still found by its name, its description and its first words", () => {
    expect(found("word-flood")).toEqual(["word-flood"]);
    expect(found("floods")).toEqual(["word-flood"]);
    expect(found("quetzalcoatl")).toEqual(["word-flood"]);
    expect(found(madeUp(0))).toEqual(["word-flood"]);
    expect(found(madeUp(1000))).toEqual(["word-flood"]);
    // Past the limit, a word new to the document is left out.
    expect(found(madeUp(WORDS - 1))).toEqual([]);
    // The other skills are indexed whole.
    expect(found("proof dough")).toEqual(["ordinary"]);
  });

  it("is named to the caller of the build, and no other skill is", () => {
    full.length = 0;
    found("bread");
    expect(full).toEqual(["p/word-flood"]);
  });

  it("adds no more to the index than a document at the limit does", async () => {
    const atLimit = await catalogWith(TERMS_A_DOCUMENT);
    try {
      const limit = savedBytes(atLimit.catalog);
      // Without the limit, five times the words took about four times the bytes.
      expect(savedBytes(catalog)).toBeLessThan(limit * 1.05);
    } finally {
      await atLimit.tree.remove();
    }
  });

  it("is named by the index, and by the index saved and loaded again", () => {
    const built = buildIndex(catalog.everything.skills, readSkillDocument);
    const loaded = indexFromPart(indexToPart(built), catalog.everything.skills);
    expect(built.cutSkills().map((skill) => skill.id)).toEqual(["p/word-flood"]);
    expect(loaded.ok && loaded.index.cutSkills().map((skill) => skill.id)).toEqual(["p/word-flood"]);
  });

  it("is said in the server's log, naming the skill and the limit", async () => {
    const config = loadStartupConfig({ SKILLS_DIR: tree.dir });
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    await prepare(config, logger);
    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said).toContain(
      "p/word-flood: SKILL.md holds more than 4,096 distinct words: search indexes its first ones only " +
        "(its name and description whole)",
    );
  });
});
