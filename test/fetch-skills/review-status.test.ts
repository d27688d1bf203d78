/**
 * What a bump changes in which skills the server serves: the repin review listed every skill a high finding
 * makes unsafe after the bump, alike whether the server served it before or not, so a bump that silently
 * stopped serving a skill (or started serving one that was left out) read as any other.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream, manifestOf, runFetcher, writeManifest } from "./helpers.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

/** A bidi control in prose: a high finding of the audit, which makes its skill unsafe. */
const HIDDEN = "Run it \u202e now.\n";

/** The review of a site pinning `snapshots`' first commit, repinned to the last. */
async function reviewOf(name: string, snapshots: Record<string, string | null>[]): Promise<string> {
  const upstream = await makeUpstream(path.join(tree.dir, name), snapshots);
  const site = await mkdtemp(path.join(tree.dir, "site-"));
  await writeManifest(
    site,
    manifestOf([{ name: "kit", repo: upstream.url, ref: upstream.commits[0] ?? "", path: "skills" }]),
  );
  const result = await runFetcher(["--update", "--summary", "pr.md"], site);
  expect(result.code, result.stderr).toBe(0);
  return readFile(path.join(site, "pr.md"), "utf8");
}

/** The review's lines on skills left out or served anew, and on every skill left out. */
function statusLines(summary: string): string[] {
  return summary
    .split("\n")
    .filter((line) => / (left out|served) (before|after) this bump|A high finding makes/.test(line));
}

describe("the repin review's skills newly left out or served", () => {
  it("names a skill a moved file makes unsafe, and the one it leaves safe, before every skill left out", async () => {
    const summary = await reviewOf("moved", [
      {
        "skills/tool/SKILL.md": skillMd("tool", "Tool."),
        "skills/tool/references/notes.md": HIDDEN,
        "skills/helper/SKILL.md": skillMd("helper", "Helps."),
      },
      { "skills/tool/references/notes.md": null, "skills/helper/references/notes.md": HIDDEN },
    ]);
    expect(statusLines(summary)).toEqual([
      "- **1 skill served before this bump is left out after it**, a high finding making it unsafe: `kit/helper`",
      "- **1 skill left out before this bump is served after it**, no high finding making it unsafe any more: `kit/tool`",
      "- A high finding makes 1 skill unsafe; the server leaves it out: `kit/helper`",
    ]);
  });

  it("names a skill whose high finding the bump fixes, and one renamed as it turns unsafe, by its new id", async () => {
    const summary = await reviewOf("fixed", [
      {
        "skills/alpha/SKILL.md": skillMd("alpha", "Alpha."),
        "skills/alpha/references/notes.md": HIDDEN,
        "skills/beta/SKILL.md": skillMd("beta", "Beta."),
        "skills/gamma/SKILL.md": skillMd("gamma", "Gamma."),
        "skills/gamma/references/notes.md": HIDDEN,
      },
      {
        "skills/alpha/references/notes.md": "Run it now.\n",
        "skills/beta/SKILL.md": null,
        "skills/beta-two/SKILL.md": skillMd("beta-two", "Beta."),
        "skills/beta-two/references/notes.md": HIDDEN,
        "skills/gamma/references/notes.md": null,
      },
    ]);
    expect(summary).toContain("- `kit/beta` → `kit/beta-two` (folder and name)");
    expect(statusLines(summary)).toEqual([
      "- **1 skill served before this bump is left out after it**, a high finding making it unsafe: `kit/beta-two`",
      "- **2 skills left out before this bump are served after it**, no high finding making them unsafe any more: `kit/alpha`, `kit/gamma`",
      "- A high finding makes 1 skill unsafe; the server leaves it out: `kit/beta-two`",
    ]);
  });

  // Unsafe before and after, or added unsafe, or removed: the server serves neither side, and the review
  // reads as it did.
  it("names none when the bump serves and leaves out the same skills", async () => {
    const summary = await reviewOf("same", [
      {
        "skills/alpha/SKILL.md": skillMd("alpha", "Alpha."),
        "skills/alpha/references/notes.md": HIDDEN,
        "skills/beta/SKILL.md": skillMd("beta", "Beta."),
        "skills/beta/references/notes.md": HIDDEN,
        "skills/delta/SKILL.md": skillMd("delta", "Delta."),
      },
      {
        "skills/alpha/references/more.md": `More.\n${HIDDEN}`,
        "skills/beta": null,
        "skills/epsilon/SKILL.md": skillMd("epsilon", "Epsilon."),
        "skills/epsilon/references/notes.md": HIDDEN,
        "skills/delta/references/notes.md": "Fine.\n",
      },
    ]);
    expect(statusLines(summary)).toEqual([
      "- A high finding makes 2 skills unsafe; the server leaves them out: `kit/alpha`, `kit/epsilon`",
    ]);
  });

  // A skill nested around a file with an old high finding is added unsafe: no finding is new and it is in
  // neither bold line (nothing served it by its id before), yet the review names it among the skills left
  // out, as any added unsafe skill; `kit/tool`, which serves the nested file too, is unsafe on both sides.
  it("names a nested skill added around a file with an old high finding among the skills left out", async () => {
    const summary = await reviewOf("nested-added", [
      {
        "skills/tool/SKILL.md": skillMd("tool", "Tool."),
        "skills/tool/inner/notes.md": HIDDEN,
      },
      { "skills/tool/inner/SKILL.md": skillMd("inner", "Inner.") },
    ]);
    expect(summary).toContain("no new high finding");
    expect(statusLines(summary)).toEqual([
      "- A high finding makes 2 skills unsafe; the server leaves them out: `kit/inner`, `kit/tool`",
    ]);
  });
});
