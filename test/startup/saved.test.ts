import { mkdir, rm, truncate, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogFingerprint, loadCatalog, readSkillDocument } from "../../src/catalog/index.js";
import { savedIndexBytes } from "../../src/saved/index.js";
import { buildIndex, indexToPart } from "../../src/search/index.js";
import { SavedStart } from "../../src/startup/saved.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const silent = pino({ level: "silent" });

describe("a saved search index of another catalog is refused, saying why", () => {
  let tree: TempTree;
  let file: string;
  /** Every SKILL.md gets this modification time, so that only what a case changes differs. */
  const time = new Date("2026-01-02T03:04:05Z");
  const skill = (name: string, description: string) =>
    skillMd(name, description, `# ${name}\nSome body text.\n`);

  async function write(relative: string, text: string): Promise<void> {
    const written = path.join(tree.dir, relative);
    await mkdir(path.dirname(written), { recursive: true });
    await writeFile(written, text);
    await utimes(written, time, time);
  }

  /** "accepted", or why not: an outdated index (of other skills) or a damaged one. */
  function problemWith(skillPacks: string[] = []): string {
    const skills = loadCatalog(tree.dir, { packs: skillPacks }).catalog.everything.skills;
    const result = SavedStart.read(file, silent).search(skills);
    if (result === undefined) return "nothing saved";
    if (result.ok) return "accepted";
    return `${result.outdated ? "outdated" : "damaged"}: ${result.problem}`;
  }

  beforeAll(async () => {
    tree = await makeTree({
      "tools/hammer/SKILL.md": skill("hammer", "Drive nails into wood."),
      "tools/saw/SKILL.md": skill("saw", "Cut planks to length."),
      "garden/kit/rake/SKILL.md": skill("rake", "Gather leaves from a lawn."),
    });
    for (const folder of ["tools/hammer", "tools/saw", "garden/kit/rake"]) {
      await utimes(path.join(tree.dir, folder, "SKILL.md"), time, time);
    }
    const { skills } = loadCatalog(tree.dir).catalog.everything;
    const search = indexToPart(buildIndex(skills, readSkillDocument));
    file = path.join(tree.dir, ".search-index");
    await writeFile(
      file,
      savedIndexBytes({ fingerprint: catalogFingerprint(skills), parts: new Map([["search", search]]) }),
    );
  });
  afterAll(() => tree.remove());

  it("accepts the catalog it was built from", () => {
    expect(problemWith()).toBe("accepted");
  });

  it("refuses it when a description changed, even with the same size and time", async () => {
    await write("tools/saw/SKILL.md", skill("saw", "Cut boards to length."));
    expect(problemWith()).toMatch(
      /^outdated: built from another catalog: a skill's id, pack, group or description/,
    );
    await write("tools/saw/SKILL.md", skill("saw", "Cut planks to length."));
    expect(problemWith()).toBe("accepted");
  });

  it("refuses it when a SKILL.md changed size, or only its modification time", async () => {
    const hammer = path.join(tree.dir, "tools/hammer/SKILL.md");
    await write(
      "tools/hammer/SKILL.md",
      skill("hammer", "Drive nails into wood.").replace("body", "longer body"),
    );
    expect(problemWith()).toMatch(/^outdated: .*the size or modification time of its SKILL\.md, differs$/);
    await write("tools/hammer/SKILL.md", skill("hammer", "Drive nails into wood."));
    expect(problemWith()).toBe("accepted");
    const later = new Date(time.getTime() + 1000);
    await utimes(hammer, later, later);
    expect(problemWith()).toMatch(/^outdated: .*the size or modification time of its SKILL\.md, differs$/);
    await utimes(hammer, time, time);
    expect(problemWith()).toBe("accepted");
  });

  it("refuses it when a skill was added, removed, or replaced by another", async () => {
    await write("tools/drill/SKILL.md", skill("drill", "Bore holes."));
    expect(problemWith()).toBe("outdated: built from another catalog: 3 skills, where 4 are loaded");
    await rm(path.join(tree.dir, "tools/saw"), { recursive: true });
    expect(problemWith()).toMatch(/^outdated: built from another catalog: a skill's id/);
    await rm(path.join(tree.dir, "tools/drill"), { recursive: true });
    expect(problemWith()).toBe("outdated: built from another catalog: 3 skills, where 2 are loaded");
    await write("tools/saw/SKILL.md", skill("saw", "Cut planks to length."));
    expect(problemWith()).toBe("accepted");
  });

  it("refuses it for another SKILL_PACKS selection", () => {
    expect(problemWith(["tools"])).toBe("outdated: built from another catalog: 3 skills, where 2 are loaded");
    expect(problemWith(["tools", "garden/kit"])).toBe("accepted");
  });
});

// Regression: a sparse saved index of 1.9 GB was read whole, taking 2 GB of memory, before being found
// to be no saved index.
describe("a saved index larger than any catalog saves", () => {
  it("is not read, and the log says why", async () => {
    const tree = await makeTree({ "p/ok/SKILL.md": skillMd("ok"), ".search-index": "" });
    try {
      const file = path.join(tree.dir, ".search-index");
      await truncate(file, 256 * 1024 * 1024 + 1);
      const lines: string[] = [];
      const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
      expect(SavedStart.read(file, logger).bytes).toBe(0);
      expect(lines.map((line) => JSON.parse(line).problem)).toEqual([
        "cannot be read: it is larger than 256 MiB",
      ]);
    } finally {
      await tree.remove();
    }
  });
});
