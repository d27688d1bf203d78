import { describe, expect, it } from "vitest";
import { loadCatalog, type Pack } from "../../src/catalog/index.js";
import { formatPacks } from "../../src/mcp/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

/** list_packs of catalogs too large to list group by group. */

async function packsOf(
  entries: Record<string, string>,
  describe?: (pack: Pack) => string,
): Promise<string[]> {
  const tree = await makeTree(entries);
  try {
    return formatPacks(loadCatalog(tree.dir).catalog.everything.packs, describe).split("\n");
  } finally {
    await tree.remove();
  }
}

/** Twenty packs of eight groups and a skill each: 180 lines group by group, past the 120 allowed. */
function twentyPacksOfEightGroups(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (let pack = 0; pack < 20; pack++) {
    for (let group = 0; group < 8; group++) {
      const name = `s-${pack}-${group}`;
      entries[`p${pack}/g${group}/${name}/SKILL.md`] = skillMd(name);
    }
  }
  return entries;
}

describe("list_packs of a large catalog", () => {
  it("lists packs only, with their group counts, once groups would take more than 120 lines", async () => {
    const entries = twentyPacksOfEightGroups();
    entries["p0/lone/SKILL.md"] = skillMd("lone");
    const lines = await packsOf(entries);
    expect(lines[0]).toBe("20 packs, 161 skills; each with its group count:");
    expect(lines[1]).toBe("p0: 9 skills in 8 groups");
    expect(lines.filter((line) => /^p\d+: 8 skills in 8 groups$/.test(line))).toHaveLength(19);
    expect(lines.some((line) => line.startsWith("  "))).toBe(false);
    expect(lines.at(-1)).toMatch(/^Next: list_skills/);
  });

  it("describes no pack when it lists packs only, and each pack once when it lists them group by group", async () => {
    // A description ranks the terms of a pack's skills: seconds over hundreds of packs, for nothing when
    // the answer has no room for it.
    const described: string[] = [];
    const describe = (pack: Pack) => {
      described.push(pack.name);
      return `all about ${pack.name}`;
    };
    const many = await packsOf(twentyPacksOfEightGroups(), describe);
    expect(many[0]).toBe("20 packs, 160 skills; each with its group count:");
    expect(described).toEqual([]);
    const few = await packsOf({ "p0/g0/a/SKILL.md": skillMd("a"), "p1/b/SKILL.md": skillMd("b") }, describe);
    expect(few.slice(0, 3)).toEqual(["p0: 1 skill — all about p0", "  g0: 1", "p1: 1 skill — all about p1"]);
    expect(described).toEqual(["p0", "p1"]);
  });

  it("names a pack's smaller groups past the 25 largest on one line, so every group can be selected", async () => {
    const entries: Record<string, string> = {};
    for (let group = 0; group < 28; group++) {
      // Groups g00-g24 hold two skills, g25-g27 one.
      for (let skill = 0; skill < (group < 25 ? 2 : 1); skill++) {
        const name = `s-${group}-${skill}`;
        entries[`big/g${String(group).padStart(2, "0")}/${name}/SKILL.md`] = skillMd(name);
      }
    }
    const lines = await packsOf(entries);
    expect(lines[0]).toBe("big: 53 skills");
    expect(lines.filter((line) => /^ {2}g\d\d: 2$/.test(line))).toHaveLength(25);
    expect(lines.at(-2)).toBe("  … and 3 smaller groups: g25 1, g26 1, g27 1");
  });

  it("lists the hundred largest packs and counts the rest", async () => {
    const entries: Record<string, string> = {};
    for (let pack = 0; pack < 130; pack++) {
      // Packs 0-29 hold one skill; the others two.
      for (let skill = 0; skill < (pack < 30 ? 1 : 2); skill++) {
        const name = `s-${pack}-${skill}`;
        entries[`p${String(pack).padStart(3, "0")}/${name}/SKILL.md`] = skillMd(name);
      }
    }
    const lines = await packsOf(entries);
    expect(lines[0]).toBe("130 packs, 230 skills; the 100 largest, each with its group count:");
    const packLines = lines.filter((line) => /^p\d{3}: /.test(line));
    expect(packLines).toHaveLength(100);
    expect(packLines.every((line) => line.endsWith(": 2 skills"))).toBe(true);
    expect(packLines[0]).toBe("p030: 2 skills");
    expect(lines.at(-2)).toBe("… and 30 smaller packs with 30 skills");
    expect(lines).toHaveLength(103);
  });
});
