/**
 * Two paths of a pack that differ only in letter case are one file on a case-insensitive file system
 * (macOS, Windows), where `skills-mcp sync` writes skills and reviewers check them out. Of two such files or
 * folders of one skill or of a pack's own files, and of two such skill folders or groups, the load serves
 * one; it warns of any pair left across them, which only a checkout loses one of.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldedFileCollisions } from "../../src/catalog/case-collisions.js";
import {
  type CatalogFile,
  caseCollisions,
  foldedName,
  loadCatalog,
  type Pack,
} from "../../src/catalog/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

// Sync writes each skill to a folder of its own, and a pack file only into a citing skill's folder,
// where it leaves out one that folds like the skill's file: only a checkout loses one. The warning said
// sync did.
const LOST =
  "only in letter case (or Unicode normalization): a checkout on a case-insensitive file system (macOS, Windows) " +
  "holds one of the two and loses the other (skills-mcp sync never writes both into one folder)";

const SERVED_INSTEAD =
  "which is served instead: a case-insensitive file system (macOS, Windows), where skills-mcp sync writes " +
  "skills, holds one of the two";

describe("files and folders of a skill or a pack that differ only in case", () => {
  // Sync refuses a skill listing both (one would overwrite the other on macOS or Windows): served, they
  // made it skip the whole skill on every system.
  it("serves one of each pair, the one in lowercase, and names both in a skipped issue", async () => {
    const tree = await makeTree({
      "kit/alpha/SKILL.md": skillMd("alpha"),
      "kit/alpha/references/Guide.md": "upper\n",
      "kit/alpha/references/guide.md": "lower\n",
      "kit/alpha/scripts/a.sh": "a\n",
      "kit/alpha/Scripts/b.sh": "b\n",
      "kit/alpha/Scripts/c.sh": "c\n",
      "kit/Beta/SKILL.md": skillMd("beta-upper"),
      "kit/beta/SKILL.md": skillMd("beta"),
      "kit/shared/NOTES.md": "n\n",
      "kit/shared/notes.md": "n\n",
      "plain/one/SKILL.md": skillMd("one"),
      "plain/one/references/guide.md": "g\n",
      "plain/two/SKILL.md": skillMd("two"),
      "plain/two/references/Guide.md": "g\n",
    });
    try {
      const { issues, catalog } = loadCatalog(tree.dir);
      const leftOut = issues.filter((issue) => issue.reason.endsWith(SERVED_INSTEAD));
      expect(leftOut.map(({ path, severity }) => ({ path, severity }))).toEqual([
        { path: "kit/shared/NOTES.md", severity: "skipped" },
        { path: "kit/alpha/Scripts", severity: "skipped" },
        { path: "kit/alpha/references/Guide.md", severity: "skipped" },
      ]);
      expect(leftOut[0]?.reason).toBe(
        `it is "kit/shared/notes.md" in another letter case, ${SERVED_INSTEAD}`,
      );
      expect(leftOut[1]?.reason).toBe(`it is "kit/alpha/scripts" in another letter case, ${SERVED_INSTEAD}`);
      // What is served, sync can write: no two paths left that a case-insensitive disk holds one of.
      expect(issues.filter((issue) => issue.reason.endsWith(LOST))).toEqual([]);
      const kit = catalog.everything.findPack("kit");
      expect([...(kit?.skills[0]?.files.keys() ?? [])]).toEqual(["references/guide.md", "scripts/a.sh"]);
      expect([...(kit?.files.keys() ?? [])]).toEqual(["shared/notes.md"]);
      expect(kit?.skills.map((skill) => skill.id)).toEqual(["kit/alpha", "kit/beta"]);
    } finally {
      await tree.remove();
    }
  });

  // Of names that fold alike and are both lowercase or both not, the first by code units: which one the
  // file system lists first does not matter. A skill's SKILL.md is served over any other spelling of it.
  it("serves the first by code units of two not in lowercase, and SKILL.md over skill.md", async () => {
    const tree = await makeTree({
      "kit/alpha/SKILL.md": skillMd("alpha"),
      "kit/alpha/skill.md": "a second document\n",
      "kit/alpha/README.md": "r\n",
      "kit/alpha/ReadMe.md": "r\n",
      "kit/alpha/inner/SKILL.md": skillMd("inner"),
      "kit/alpha/inner/Skill.md": "i\n",
    });
    try {
      const { issues, catalog } = loadCatalog(tree.dir);
      const leftOut = issues.filter((issue) => issue.reason.endsWith(SERVED_INSTEAD));
      expect(leftOut.map(({ path }) => path)).toEqual([
        "kit/alpha/ReadMe.md",
        "kit/alpha/inner/Skill.md",
        "kit/alpha/skill.md",
      ]);
      const [alpha, inner] = catalog.everything.skills;
      expect([alpha?.id, inner?.id]).toEqual(["kit/alpha", "kit/inner"]);
      expect([...(alpha?.files.keys() ?? [])]).toEqual(["README.md", "inner/SKILL.md"]);
      expect(inner?.files.size).toBe(0);
    } finally {
      await tree.remove();
    }
  });

  // Regression: the warning said skills-mcp sync lost one of the two, which it never writes into one
  // folder; only a checkout on macOS or Windows does.
  it("warns of a pair across a skill and the pack's own files, as a checkout loses one", async () => {
    const tree = await makeTree({
      "kit/alpha/SKILL.md": skillMd("alpha"),
      "kit/Alpha/notes.md": "a pack file\n",
    });
    try {
      expect(loadCatalog(tree.dir).issues).toEqual([
        { severity: "warning", path: "kit/alpha", reason: `differs from "kit/Alpha" ${LOST}` },
      ]);
    } finally {
      await tree.remove();
    }
  });

  it("warns of nothing in a pack whose paths differ in more than case", async () => {
    const tree = await makeTree({
      "kit/alpha/SKILL.md": skillMd("alpha"),
      "kit/alpha/references/guide.md": "g\n",
      "kit/alpha/references/guides.md": "g\n",
    });
    try {
      expect(loadCatalog(tree.dir).issues).toEqual([]);
    } finally {
      await tree.remove();
    }
  });

  // A hostile pack: paths thousands of folders deep, and a hundred thousand files in colliding pairs.
  it("reads a pack of deep paths and many collisions once, warning of each pair", () => {
    const file = (path: string): CatalogFile => ({
      path,
      size: 1,
      mtimeMs: 0,
      source: "/nowhere",
      identity: "0:0",
    });
    const deep = Array.from({ length: 2000 }, () => "d").join("/");
    const paths = [
      `${deep}/x.md`,
      `${deep.toUpperCase()}/x.md`,
      ...Array.from({ length: 50_000 }, (_, i) => [`f-${i}.md`, `F-${i}.md`]).flat(),
    ];
    const pack: Pack = {
      name: "big",
      skills: [],
      groups: [],
      files: new Map(paths.map((path) => [path, file(path)])),
    };
    const warned = caseCollisions(pack);
    expect(warned).toHaveLength(50_001);
    expect(warned[0]?.path).toBe("big/D");
    expect(warned[1]?.path).toBe("big/F-0.md");
    const { leftOut, collisions } = foldedFileCollisions(paths);
    expect(leftOut.size).toBe(50_001);
    expect(collisions[0]).toEqual({ path: deep.toUpperCase().split("/", 1)[0], other: "d" });
    expect(collisions[1]).toEqual({ path: "F-0.md", other: "f-0.md" });
  });
});

describe("a folded name", () => {
  // ASCII takes a shorter way (lower case alone, no normalizing): it must fold as every other text does.
  it("is the name in NFC, upper then lower case, ASCII or not", () => {
    const unit = fc.oneof(
      fc.constantFrom("A", "z", "_", "-", " ", "/", "ſ", "K", "e\u0301", "ß", "İ", "Σ", "\u{1D400}"),
      fc.string({ unit: "binary", maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ unit }), (name) => {
        expect(foldedName(name)).toBe(name.normalize("NFC").toUpperCase().toLowerCase());
      }),
      { numRuns: 2000 },
    );
  });
});
