/**
 * Pack, group and skill names in tool arguments as models write them. read_skill read "Color-Palettes",
 * but list_skills(pack="Design") and read_pack_file(pack="Design") answered "Unknown pack"; read_skill
 * refused "color_palettes" and "color palettes", and its did-you-mean named icon-sets beside color-palettes.
 */
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { describe, expect, it } from "vitest";
import { call, serveTree } from "../helpers/server.js";
import { skillMd } from "../helpers/skill-tree.js";

describe("names in tool arguments in another case or with other separators", () => {
  const served = serveTree({
    "design/palettes/color-palettes/SKILL.md": skillMd("color-palettes", "Choose color palettes and sets"),
    "design/icon-sets/SKILL.md": skillMd("icon-sets", "Pick color icon sets"),
    "design/shared/tokens.md": "# Tokens\n",
    "ops/deploy/SKILL.md": skillMd("deploy", "Deploy a service"),
  });

  it("lists the skills of a pack or group named in another case", async () => {
    for (const pack of ["Design", "DESIGN", "Design/Palettes", "PALETTES"]) {
      const { text, isError } = await call(served.client, "list_skills", { pack });
      expect(isError, pack).toBe(false);
      expect(text).toContain("color-palettes");
      expect(text).not.toContain("deploy");
    }
  });

  it("reads a pack file of a pack named in another case", async () => {
    const { text, isError } = await call(served.client, "read_pack_file", {
      pack: "Design",
      file: "shared/tokens.md",
    });
    expect(isError).toBe(false);
    expect(text).toContain("# Tokens");
  });

  it("gives X-Skill-Pack in another case exactly that pack", async () => {
    const client = await served.server.connect({ headers: { "X-Skill-Pack": "Design" } });
    const { text } = await call(client, "list_skills");
    await client.close();
    expect(text).toContain("color-palettes");
    expect(text).not.toContain("deploy");
  });

  it("reads a skill named with _ or spaces for -", async () => {
    for (const skill of ["color_palettes", "color palettes", "Color_Palettes", "design/color_palettes"]) {
      const { text, isError } = await call(served.client, "read_skill", { skill });
      expect(isError, skill).toBe(false);
      expect(text).toContain("Choose color palettes");
    }
  });

  it("suggests only the close name for a mistyped one, not skills sharing a word", async () => {
    const { text, isError } = await call(served.client, "read_skill", { skill: "color-palets" });
    expect(isError).toBe(true);
    expect(text).toContain("Did you mean: color-palettes?");
    expect(text).not.toContain("icon-sets");
  });
});

// Regression: `design` and `Design` were two packs, each selected by its exact name alone, and on a
// case-insensitive file system (where sync writes) one folder. The load now serves `design` only.
describe("two packs whose names differ only in case", () => {
  const served = serveTree({
    "Design/b/SKILL.md": skillMd("b", "Skill b"),
    "design/a/SKILL.md": skillMd("a", "Skill a"),
  });

  it("are one pack: the lowercase one, whatever case X-Skill-Pack, the pack argument or a URI spells", async () => {
    for (const pack of ["design", "Design", "DESIGN"]) {
      const scoped = await served.server.connect({ headers: { "X-Skill-Pack": pack } });
      expect((await call(scoped, "list_skills")).text, pack).toMatch(/^a\b/);
      await scoped.close();
      const listed = await call(served.client, "list_skills", { pack });
      expect(listed.text, pack).toMatch(/^a\b/);
      expect(listed.text, pack).not.toMatch(/^b\b/m);
    }
    const read = await call(served.client, "read_skill", { skill: "b" });
    expect(read.isError).toBe(true);
    const resources = await served.client.listResources();
    expect(resources.resources.map((resource) => resource.uri).filter((uri) => /design/i.test(uri))).toEqual([
      "skill://design/a/SKILL.md",
    ]);
  });

  it("read in any case in a skill:// URI as the one served, the other naming nothing", async () => {
    const skills = new SkillsClient(served.client);
    const { skill } = await skills.get("skill://DESIGN/a/SKILL.md");
    expect(skill.uri).toBe("skill://DESIGN/a/SKILL.md");
    expect((await skills.read(skill, skill.uri)).verified).toBe(true);
    await expect(skills.get("skill://Design/b/SKILL.md")).rejects.toThrow(/No skill is served/);
    await expect(served.client.readResource({ uri: "skill://Design/b/SKILL.md" })).rejects.toThrow(
      /Resource not found/,
    );
  });
});

// Regression: groups `Docs` and `docs` of one pack were both served, and `DOCS` or `p/DOCS` selected neither
// ("Unknown pack or group"); skills `PDF` and `pdf` were two, each at its own skill:// URI.
describe("two groups or skill folders of a pack whose names differ only in case", () => {
  const served = serveTree({
    "p/Docs/b/SKILL.md": skillMd("b", "Skill b"),
    "p/docs/a/SKILL.md": skillMd("a", "Skill a"),
    "p/PDF/SKILL.md": skillMd("PDF", "Skill PDF"),
    "p/pdf/SKILL.md": skillMd("pdf", "Skill pdf"),
  });

  it("are one: the lowercase one, whatever case the pack argument spells", async () => {
    for (const pack of ["docs", "Docs", "DOCS", "p/DOCS"]) {
      const listed = await call(served.client, "list_skills", { pack });
      expect(listed.isError, pack).toBe(false);
      expect(listed.text, pack).toMatch(/^a\b/);
      expect(listed.text, pack).not.toMatch(/^b\b/m);
    }
    const resources = await served.client.listResources();
    expect(resources.resources.map((resource) => resource.uri).filter((uri) => /pdf/i.test(uri))).toEqual([
      "skill://p/pdf/SKILL.md",
    ]);
  });
});

// Regression: skills named `PDF` and `pdf` in folders apart were both served: read_skill("Pdf") was refused
// as ambiguous between `p/PDF` and `p/pdf`, read_skill("PDF") read another skill than "pdf" did, and a host
// writing each skill to a folder of its name on macOS or Windows kept one. Names fold as folders do.
describe("two skills of a pack whose names differ only in case, in folders apart", () => {
  const served = serveTree({
    "p/a/PDF-tools/SKILL.md": skillMd("PDF", "Skill PDF"),
    "p/b/pdf/SKILL.md": skillMd("pdf", "Skill pdf"),
  });

  it("are one: the lowercase one, whatever case read_skill spells", async () => {
    for (const skill of ["pdf", "PDF", "Pdf", "p/PDF"]) {
      const { text, isError } = await call(served.client, "read_skill", { skill });
      expect(isError, skill).toBe(false);
      expect(text, skill).toContain("Skill pdf");
    }
    const resources = await served.client.listResources();
    expect(resources.resources.map((resource) => resource.uri).filter((uri) => /pdf/i.test(uri))).toEqual([
      "skill://p/b/pdf/SKILL.md",
    ]);
  });
});
