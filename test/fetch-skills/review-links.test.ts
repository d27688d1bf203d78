/**
 * A bump of a skill that links one hostile file many times: the fetcher copies each symlink's target as a
 * file of its own, and the review made and held every finding of every copy on both sides (4,000 links to a
 * file of 252 findings: a million findings a side, 2 GiB and more). It audits one content once now and
 * compares the findings a path at a time; what it lists must stay each path's own, once.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBySeverity, findingsTable } from "../../scripts/audit-markdown.js";
import { manyFindings } from "../helpers/many-findings.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream } from "./helpers.js";
import { bumpIn, type FindingLists } from "./review-helpers.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

/** 2 lines of each of 12 rules: 24 findings, 8 of them high (4 rules). */
const HOSTILE = manyFindings(2);

/**
 * The fetcher's heap in the test of many paths, which the review ran out of when it held each of their
 * 216,000 findings and made their JSON (52 MB) whole before writing it; it needs some 80 MiB now.
 */
const HEAP_MIB = 128;

/** `count` symlinks from `first` on, in the skill's references, to its hostile file. */
function links(first: number, count: number): Record<string, { symlink: string }> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `skills/linked/references/link-${first + i}.md`,
      { symlink: "hostile.md" },
    ]),
  );
}

/**
 * `count` files of `text` from `first` on, in the skill's references: what git holds of hard links to
 * one file, each a file of the same bytes.
 */
function copies(first: number, count: number, text: string): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`skills/linked/references/copy-${first + i}.md`, text]),
  );
}

/** `--findings`' text as JSON.stringify writes the whole object it holds. */
function asWhole(json: string): string {
  return `${JSON.stringify(JSON.parse(json), null, 2)}\n`;
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
    // `--findings` writes each list once, with the paths that show it: it wrote each path's findings, the
    // same 252 at each of 4,000 links to one file, 244 MB.
    const written: FindingLists = JSON.parse(await readFile(path.join(bumped.site, "findings.json"), "utf8"));
    expect(
      written.findingLists.map(({ paths, findings }) => ({
        paths: [...paths].sort(),
        findings: findings.length,
        new: findings.filter((found) => found.new).length,
        named: findings.filter((found) => "path" in found).length,
      })),
    ).toEqual([
      { paths: [...kept].sort(), findings: 8, new: 0, named: 0 },
      { paths: [...added].sort(), findings: 24, new: 24, named: 0 },
    ]);
  }, 240_000);

  it("writes its findings and their table as the whole list reads, byte for byte", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "whole"), [
      {
        "skills/linked/SKILL.md": skillMd("linked", "Links one file many times."),
        "skills/linked/references/hostile.md": HOSTILE,
        "shared/a.md": "# Shared notes\n",
        ...links(0, 2),
      },
      { ...links(2, 2), ...copies(0, 1, HOSTILE) },
    ]);
    const bumped = await bumpIn(tree.dir, [
      { name: "kit", url: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    expect(bumped.code, bumped.stderr).toBe(0);
    const json = await readFile(path.join(bumped.site, "findings.json"), "utf8");
    expect(json).toBe(asWhole(json));
    const { findings } = bumped;
    // 3 new paths of 24 findings, and the 8 high ones of each of the 3 kept.
    expect(findings).toHaveLength(3 * 24 + 3 * 8);
    const fresh = findings.filter((found) => found.new);
    const newOf = (level: string) => fresh.filter((found) => found.severity === level).length;
    expect(bumped.summary).toContain(
      `- Audit ([rules](docs/audit.md)): **${newOf("high")} new high findings**, **${newOf("medium")} new medium findings** to read (table below); in what this bump adds or changes: ${countBySeverity(fresh)} new.`,
    );
    // The table as the review made it of the whole list: new first, then worst first, each in order.
    const ordered = [...findings].sort((a, b) => Number(b.new) - Number(a.new));
    expect(bumped.summary).toContain(
      findingsTable(ordered, Number.POSITIVE_INFINITY, (found) => (found.new ? "new" : undefined)).join("\n"),
    );
  }, 240_000);

  // The review listed a million findings at 4,000 links to a file of 252, each held, and made their JSON
  // whole before writing a byte: 2.8 GiB. Each content's findings are held once now, with the paths that
  // show them, and written so, a list at a time.
  it("writes the findings of thousands of paths a bump adds to one file in bounded memory", async () => {
    const many = manyFindings(15);
    const upstream = await makeUpstream(path.join(tree.dir, "many"), [
      {
        "skills/linked/SKILL.md": skillMd("linked", "Links one file many times."),
        "skills/linked/references/hostile.md": many,
        "shared/a.md": "# Shared notes\n",
      },
      { ...links(0, 600), ...copies(0, 600, many) },
    ]);
    const bumped = await bumpIn(
      tree.dir,
      [{ name: "kit", url: upstream.url, ref: upstream.commits[0] ?? "" }],
      HEAP_MIB,
    );
    expect(bumped.code, bumped.stderr).toBe(0);
    const json = await readFile(path.join(bumped.site, "findings.json"), "utf8");
    expect(json).toBe(asWhole(json));
    // 180 findings (60 high) of each new path, all new; the 60 high ones of the file itself, not new.
    expect(bumped.findings).toHaveLength(1_200 * 180 + 60);
    expect(bumped.findings.filter((found) => found.new)).toHaveLength(1_200 * 180);
    expect(bumped.summary).toContain("**72,000 new high findings**");
  }, 600_000);
});
