/**
 * Two served paths of a pack that differ only in letter case are one file on a case-insensitive file
 * system (macOS, Windows), where `skills-mcp sync` writes skills and reviewers check them out: one of the
 * two is lost there. The load warns of each such pack path (of two such skill folders or groups, it serves
 * one).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CatalogFile,
  caseCollisions,
  foldedName,
  loadCatalog,
  type Pack,
} from "../../src/catalog/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

const LOST =
  "only in letter case (or Unicode normalization): on a case-insensitive file system (macOS, Windows), where skills-mcp sync writes " +
  "skills and reviewers check them out, the two are one and one of them is lost";

describe("the load's warning of paths that differ only in case", () => {
  it("names each file and folder of a pack that another differs from only in case, once", async () => {
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
      const { issues } = loadCatalog(tree.dir);
      const warned = issues.filter((issue) => issue.reason.endsWith(LOST));
      expect(warned.map(({ path, severity }) => ({ path, severity }))).toEqual([
        { path: "kit/shared/notes.md", severity: "warning" },
        { path: "kit/alpha/references/guide.md", severity: "warning" },
        { path: "kit/alpha/scripts", severity: "warning" },
      ]);
      expect(warned[0]?.reason).toBe(`differs from "kit/shared/NOTES.md" ${LOST}`);
      expect(warned[2]?.reason).toBe(`differs from "kit/alpha/Scripts" ${LOST}`);
      // Both files stay served: the warning is for the file systems that cannot hold them. Of two skill
      // folders, one is served (see "skill folders that differ only in letter case").
      const kit = loadCatalog(tree.dir).catalog.everything.findPack("kit");
      expect([...(kit?.skills[0]?.files.keys() ?? [])]).toEqual([
        "Scripts/b.sh",
        "Scripts/c.sh",
        "references/Guide.md",
        "references/guide.md",
        "scripts/a.sh",
      ]);
      expect(kit?.skills.map((skill) => skill.id)).toEqual(["kit/alpha", "kit/beta"]);
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
    const file = (path: string): CatalogFile => ({ path, size: 1, mtimeMs: 0, source: "/nowhere" });
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
