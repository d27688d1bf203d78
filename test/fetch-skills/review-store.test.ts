/**
 * `--update` without `--cache`: the review's fetch of each moved source's old commit goes into the store
 * the run fetched the new commit into, so upstream sends only what the old commit has that the new lacks.
 * With `--cache`: what the stores keep once the review has fetched the old commits there.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { git, makeSite, makeUpstream, runFetcher, spawnFetcher } from "./helpers.js";

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

/** The objects in each pack upstream sent, as its header counts them (bytes 8 to 11), fewest first. */
async function packObjectCounts(folder: string): Promise<number[]> {
  const counts: number[] = [];
  for (const name of await readdir(folder)) {
    counts.push((await readFile(path.join(folder, name))).readUInt32BE(8));
  }
  return counts.sort((a, b) => a - b);
}

describe("fetch-skills --update without --cache", () => {
  it("fetches a moved source's old commit for the review as the difference from its new one", async () => {
    const files: Record<string, string> = { "skills/bulk/SKILL.md": skillMd("bulk") };
    for (let i = 0; i < 150; i++) files[`skills/bulk/references/file-${i}.md`] = `reference ${i}\n`;
    const upstream = await makeUpstream(path.join(tree.dir, "big"), [
      files,
      { "skills/bulk/references/file-7.md": "reference seven, revised\n" },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "big", repo: upstream.url, ref: upstream.commits[0] ?? "", path: "skills" },
    ]);
    // Upstream keeps a copy of each pack it sends (git runs this hook for every fetch it serves).
    const packs = path.join(tree.dir, "packs");
    const hook = path.join(tree.dir, "keep-pack.sh");
    await writeFile(
      hook,
      `#!/bin/sh\nmkdir -p '${packs}'\n"$@" > '${packs}'/pack.$$\nstatus=$?\ncat '${packs}'/pack.$$\nexit $status\n`,
      { mode: 0o755 },
    );
    const config = path.join(tree.dir, "keep-pack.gitconfig");
    await writeFile(config, `[uploadpack]\n\tpackObjectsHook = ${hook}\n`);

    const result = await spawnFetcher(["--update", "--summary", "pr.md"], site, {
      GIT_CONFIG_GLOBAL: config,
    });

    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(site, "pr.md"), "utf8")).toContain("file-7.md");
    // The new commit whole (151 blobs, 4 trees, the commit); then the old one's commit, its 4 trees on the
    // changed file's path and that file: without a store shared with the fetch, 156 again.
    expect(await packObjectCounts(packs)).toEqual([6, 156]);
    // The run's store went with the run.
    expect((await readdir(site)).sort()).toEqual(["pr.md", "skills", "skills.toml"]);
  });
});

/** The commit each `refs/sources/<name>` of the stores in `cache` names, by source name. */
async function sourceRefs(cache: string): Promise<Record<string, string>> {
  const refs: Record<string, string> = {};
  for (const store of await readdir(cache)) {
    const listed = await git(path.join(cache, store), "for-each-ref", "--format=%(refname) %(objectname)");
    for (const line of listed.split("\n").filter((item) => item !== "")) {
      const [name = "", commit = ""] = line.split(" ");
      if (name.startsWith("refs/sources/")) refs[name.slice("refs/sources/".length)] = commit;
    }
  }
  return refs;
}

describe("fetch-skills --update --cache", () => {
  // Regression: the review fetched each moved source's old commit into the cache's store and pointed the
  // source's ref at it, so the pinned commit was held by no ref: a `git gc` of the cache could prune it,
  // and the next build fetch it again.
  it("leaves each source's ref in the cache at the commit its pack was built from", async () => {
    const moved = await makeUpstream(path.join(tree.dir, "moved"), [
      { "skills/a/SKILL.md": skillMd("a") },
      { "skills/a/SKILL.md": skillMd("a", "Does a, better.") },
    ]);
    // Its new commit fails the fetch: held back at its pin.
    const gone = await makeUpstream(path.join(tree.dir, "gone"), [
      { "skills/b/SKILL.md": skillMd("b") },
      { skills: null, "docs/moved.md": "the skills moved elsewhere\n" },
    ]);
    // The server serves neither commit: repinned all the same, after its pin was fetched to compare.
    const unserved = await makeUpstream(path.join(tree.dir, "unserved"), [
      { "skills/c/SKILL.md": "no frontmatter\n" },
      { "skills/c/SKILL.md": "still no frontmatter\n" },
    ]);
    const site = await makeSite(
      tree.dir,
      [moved, gone, unserved].map((upstream, index) => ({
        name: ["moved", "gone", "unserved"][index] ?? "",
        repo: upstream.url,
        ref: upstream.commits[0] ?? "",
        path: "skills",
      })),
    );

    const result = await runFetcher(["--update", "--cache", "cache"], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("gone: held back at");
    expect(result.stderr).toContain("unserved: warning: its new commit");
    expect(await sourceRefs(path.join(site, "cache"))).toEqual({
      moved: moved.commits[1],
      gone: gone.commits[0],
      unserved: unserved.commits[1],
    });
  }, 180_000);
});
