import { link, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

describe("files that many paths lead to", () => {
  // Regression: a file hard-linked into a skill N times was read and audited N times (symlinks to one file
  // were audited once), so hard links multiplied a file's audit as symlinks did before.
  it("audits a file hard-linked three times once, and reports its finding at each path, as for symlinks", async () => {
    const folder = await makeTree({
      "p/wide/SKILL.md": skillMd("wide"),
      "p/wide/notes.md": "Looks harmless\u202E until it is rendered.\n",
      "p/wide/via-symlink.md": { symlink: "notes.md" },
    });
    try {
      const notes = path.join(folder.dir, "p/wide/notes.md");
      await mkdir(path.join(folder.dir, "p/wide/hard"));
      for (const name of ["a.md", "b.md", "c.md"])
        await link(notes, path.join(folder.dir, "p/wide/hard", name));
      const { catalog } = loadCatalog(folder.dir);
      const sameFile = ["hard/a.md", "hard/b.md", "hard/c.md", "notes.md", "via-symlink.md"];
      // The audit reads and audits a file once per real file it leads to (CatalogAudit, tested in
      // folder.test.ts): the catalog must name one real file for all five paths. (The suite shares modules
      // between files, so the rules cannot be counted here through vi.mock.)
      const files = catalog.everything.skills.find((skill) => skill.id === "p/wide")?.files;
      expect(new Set(sameFile.map((file) => files?.get(file)?.identity)).size).toBe(1);
      const { audit, inspection } = await inspectCatalog(catalog, { audit: {} });
      expect(audit.findings.map((found) => `${found.path}:${found.line}:${found.rule}`)).toEqual(
        sameFile.map((file) => `p/wide/${file}:1:bidi-control`),
      );
      expect(inspection.unsafe().map(({ skill, count }) => [skill.id, count])).toEqual([["p/wide", 5]]);
    } finally {
      await folder.remove();
    }
  });
});
