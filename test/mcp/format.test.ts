import { describe, expect, it } from "vitest";
import type { CatalogFile } from "../../src/catalog/index.js";
import { formatManifest } from "../../src/mcp/format.js";

const WORDING = {
  title: "Files of skill s",
  empty: "No files.",
  next: 'read_skill(skill="s", file="<path>")',
};

function filesAt(paths: readonly string[]): Map<string, CatalogFile> {
  return new Map(
    paths.map((path) => [
      path,
      { path, size: 10, mtimeMs: 0, source: `/skills/${path}`, identity: `path:/skills/${path}` },
    ]),
  );
}

describe("a skill's manifest", () => {
  it("lists 500 files, then counts the rest", () => {
    const paths = Array.from({ length: 600 }, (_, i) => `references/file-${String(i).padStart(3, "0")}.md`);
    const lines = formatManifest(filesAt(paths), WORDING).split("\n");
    expect(lines[0]).toBe("Files of skill s (600):");
    expect(lines.slice(1, 501)).toEqual(paths.slice(0, 500).map((path) => `${path} (10 B)`));
    expect(lines.slice(501)).toEqual(["… 100 more files", 'Next: read_skill(skill="s", file="<path>").']);
  });

  // Regression: 600 files nested to the system's path limit made a manifest of 1.9 MB, some 470,000 tokens.
  it("stops listing at 32 KiB of paths, and counts what it leaves out", () => {
    const folder = Array.from({ length: 15 }, () => "d".repeat(250)).join("/");
    const paths = Array.from({ length: 600 }, (_, i) => `${folder}/f${String(i).padStart(3, "0")}.md`);
    const text = formatManifest(filesAt(paths), WORDING);
    const lines = text.split("\n");
    const listed = lines.filter((line) => line.startsWith(folder));
    expect(listed).toEqual(paths.slice(0, listed.length).map((path) => `${path} (10 B)`));
    expect(listed.length).toBe(Math.floor((32 * 1024) / `${paths[0]} (10 B)`.length));
    expect(lines.at(-2)).toBe(`… ${600 - listed.length} more files`);
    expect(text.length).toBeLessThan(33 * 1024);
  });

  it("lists a single file whatever the length of its path", () => {
    const path = `${"d".repeat(250)}/`.repeat(20).concat("f.md");
    expect(formatManifest(filesAt([path]), WORDING).split("\n")[1]).toBe(`${path} (10 B)`);
  });
});
