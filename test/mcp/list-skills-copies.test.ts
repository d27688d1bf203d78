import { describe, expect, it } from "vitest";
import { call, serveTree } from "../helpers/server.js";
import { skillMd } from "../helpers/skill-tree.js";

/**
 * One skill copied into two packs (same name and description), a third pack's skill of that name told
 * differently, eleven others that a search for container images also finds, and twelve weekly reports
 * each copied into two packs.
 */
const COPIED = "Build small, safe container images.";
const TREE = {
  "alpha/docker-expert/SKILL.md": skillMd("docker-expert", COPIED),
  "beta/docker-expert/SKILL.md": skillMd("docker-expert", COPIED),
  "gamma/docker-expert/SKILL.md": skillMd("docker-expert", "Build container images the gamma way."),
  ...Object.fromEntries(
    Array.from({ length: 11 }, (_, i) => [
      `alpha/images-${String(i).padStart(2, "0")}/SKILL.md`,
      skillMd(`images-${String(i).padStart(2, "0")}`, `Container images, part ${i}.`),
    ]),
  ),
  ...Object.fromEntries(
    ["delta", "epsilon"].flatMap((pack) =>
      Array.from({ length: 12 }, (_, i) => [
        `${pack}/report-${String(i).padStart(2, "0")}/SKILL.md`,
        // Every other one longer, so that no more than ten tie (see SearchResult.vague).
        skillMd(
          `report-${String(i).padStart(2, "0")}`,
          `A weekly report${i % 2 ? " for the team, with charts, tables and notes" : ""}.`,
        ),
      ]),
    ),
  ),
};
const COPY_LINE = `alpha/docker-expert: ${COPIED} (also in beta)`;

const served = serveTree(TREE);
/** The same, beside twelve skills about plants: the reports are then not half the skills. */
const withPlants = serveTree({
  ...TREE,
  ...Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [
      `zeta/water-${String(i).padStart(2, "0")}/SKILL.md`,
      skillMd(`water-${String(i).padStart(2, "0")}`, `Water the plants on day ${i}.`),
    ]),
  ),
});

function skillLines(answer: string): string[] {
  return answer.split("\n").filter((line) => /^[\w/-]+: /.test(line) && !line.startsWith("Next: "));
}

describe("a skill copied into several packs", () => {
  it("is one search result naming the other packs, and leaves its place to another skill", async () => {
    const lines = skillLines(
      (await call(served.client, "list_skills", { query: "safe container images" })).text,
    );
    expect(lines[0]).toBe(COPY_LINE);
    expect(lines).toHaveLength(10);
    expect(new Set(lines).size).toBe(10);
    expect(lines.some((line) => line.startsWith("beta/docker-expert"))).toBe(false);
  });

  it("is one line of the listing", async () => {
    const lines = skillLines((await call(served.client, "list_skills", {})).text);
    expect(lines).toContain(COPY_LINE);
    expect(lines.filter((line) => line.includes("docker-expert"))).toEqual([
      COPY_LINE,
      "gamma/docker-expert: Build container images the gamma way.",
    ]);
    expect(lines).toHaveLength(13 + 12);
  });

  it("is not counted again among the matches left out, shown or not", async () => {
    const { text } = await call(withPlants.client, "list_skills", { query: "weekly report" });
    const lines = text.split("\n");
    expect(lines.slice(0, 10).every((line) => / \(also in epsilon\)$/.test(line))).toBe(true);
    // Twelve reports, each in two packs: ten shown, two left out (four folders).
    expect(lines[10]).toBe(
      "… 2 more skills matched nearly as well: add words to the query, or narrow with pack.",
    );
  });

  it("names only the packs in scope", async () => {
    const inBeta = await call(served.client, "list_skills", { query: "safe container images", pack: "beta" });
    expect(skillLines(inBeta.text)).toEqual([`beta/docker-expert: ${COPIED}`]);
    const betaClient = await served.server.connect({ headers: { "X-Skill-Pack": "beta,gamma" } });
    const listing = skillLines((await call(betaClient, "list_skills", {})).text);
    expect(listing).toEqual([
      `beta/docker-expert: ${COPIED}`,
      "gamma/docker-expert: Build container images the gamma way.",
    ]);
  });

  it("can still be read from either pack", async () => {
    for (const skill of ["alpha/docker-expert", "beta/docker-expert"]) {
      expect((await call(served.client, "read_skill", { skill })).text).toContain(COPIED);
    }
  });
});
