/**
 * A bump of a skill that links one hostile file many times: the fetcher copies each symlink's target as a
 * file of its own, and the review made and held every finding of every copy on both sides (4,000 links to a
 * file of 252 findings: a million findings a side, 2 GiB and more). It audits one content once now and
 * compares the findings a path at a time; what it lists must stay each path's own, once.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manyFindings } from "../helpers/many-findings.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream } from "./helpers.js";
import { bumpIn } from "./review-helpers.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

/** 2 lines of each of 12 rules: 24 findings, 8 of them high (4 rules). */
const HOSTILE = manyFindings(2);

/** `count` symlinks from `first` on, in the skill's references, to its hostile file. */
function links(first: number, count: number): Record<string, { symlink: string }> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `skills/linked/references/link-${first + i}.md`,
      { symlink: "hostile.md" },
    ]),
  );
}

describe("the repin review of many links to one hostile file", () => {
  it("lists each path's findings once, new where the bump adds the link, and only the high ones of the others", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "linked"), [
      {
        "skills/linked/SKILL.md": skillMd("linked", "Links one file many times."),
        "skills/linked/references/hostile.md": HOSTILE,
        "shared/a.md": "# Shared notes\n",
        ...links(0, 12),
      },
      { ...links(12, 12) },
    ]);
    const bumped = await bumpIn(tree.dir, [
      { name: "kit", url: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    expect(bumped.code, bumped.stderr).toBe(0);
    const byPath = new Map<string, typeof bumped.findings>();
    for (const found of bumped.findings) byPath.set(found.path, [...(byPath.get(found.path) ?? []), found]);
    const added = Array.from({ length: 12 }, (_, i) => `kit/linked/references/link-${12 + i}.md`);
    const kept = ["hostile.md", ...Array.from({ length: 12 }, (_, i) => `link-${i}.md`)].map(
      (name) => `kit/linked/references/${name}`,
    );
    expect([...byPath.keys()].sort()).toEqual([...added, ...kept].sort());
    for (const where of added) {
      const findings = byPath.get(where) ?? [];
      // Every finding of the file, once, each new: the bump adds this path.
      expect(findings).toHaveLength(24);
      expect(new Set(findings.map(({ line, rule }) => `${line} ${rule}`)).size).toBe(24);
      expect(findings.every((found) => found.new)).toBe(true);
    }
    for (const where of kept) {
      const findings = byPath.get(where) ?? [];
      // Unchanged: its high findings alone, each once, none new.
      expect(findings).toHaveLength(8);
      expect(new Set(findings.map(({ line, rule }) => `${line} ${rule}`)).size).toBe(8);
      expect(findings.every((found) => found.severity === "high" && !found.new)).toBe(true);
    }
    expect(bumped.summary).toContain("**96 new high findings**");
  }, 240_000);
});
