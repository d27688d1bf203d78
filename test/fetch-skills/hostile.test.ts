import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream, manifestOf, runFetcher, writeManifest } from "./helpers.js";

/** Issue 24: what a hostile upstream repository, or a stopped run, did to the fetcher. */

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

async function makeSite(sources: Record<string, string | string[]>[]): Promise<string> {
  const site = path.join(tree.dir, `site-${Math.random().toString(36).slice(2)}`);
  await mkdir(site);
  await writeManifest(site, manifestOf(sources));
  return site;
}

describe("fetch-skills: what a stopped run leaves behind", () => {
  it("removes the work folders of runs that were killed, and keeps those of runs still going", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "plain"), [{ "a/SKILL.md": skillMd("a") }]);
    const site = await makeSite([{ name: "p", repo: repo.url, ref: repo.commits[0] ?? "" }]);
    // A run killed on this host (its process is gone), one from before runs recorded themselves and a
    // day old, and one of a run still going (this process).
    const dead = path.join(site, ".skills-fetch-Dead01");
    const old = path.join(site, ".skills-fetch-Old001");
    const live = path.join(site, ".skills-fetch-Live01");
    for (const folder of [dead, old, live]) await mkdir(path.join(folder, "out"), { recursive: true });
    const owner = (pid: number) => JSON.stringify({ pid, host: hostname() });
    await writeFile(path.join(dead, "owner.json"), owner(2 ** 22 + 1));
    await writeFile(path.join(live, "owner.json"), owner(process.pid));
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    await utimes(old, dayAgo, dayAgo);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect((await readdir(site)).sort()).toEqual([".skills-fetch-Live01", "skills", "skills.toml"]);
    expect(result.stderr).toContain(`removed ${dead}, left by a run that was stopped`);
    expect(result.stderr).toContain(`removed ${old}, left by a run that was stopped`);
  });
});
