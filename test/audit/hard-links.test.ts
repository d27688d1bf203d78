import { link, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { auditFile } from "../../src/audit/file.js";
import { loadCatalog } from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { makeTree, skillMd } from "../helpers/skill-tree.js";

// The rules themselves, counted: how many times a file's bytes are audited is what links multiplied.
vi.mock("../../src/audit/file.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/audit/file.js")>();
  return { ...original, auditFile: vi.fn(original.auditFile) };
});

/** The paths `auditFile` was asked to audit, each time it was. */
function auditedPaths(): string[] {
  return vi.mocked(auditFile).mock.calls.map(([where]) => where);
}

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
      vi.mocked(auditFile).mockClear();
      const { audit, inspection } = await inspectCatalog(loadCatalog(folder.dir).catalog, { audit: {} });
      const sameFile = ["hard/a.md", "hard/b.md", "hard/c.md", "notes.md", "via-symlink.md"];
      expect(audit.findings.map((found) => `${found.path}:${found.line}:${found.rule}`)).toEqual(
        sameFile.map((file) => `p/wide/${file}:1:bidi-control`),
      );
      expect(
        auditedPaths().filter((where) => sameFile.some((file) => where === `p/wide/${file}`)),
      ).toHaveLength(1);
      expect(inspection.unsafe().map(({ skill, count }) => [skill.id, count])).toEqual([["p/wide", 5]]);
    } finally {
      await folder.remove();
    }
  });
});
