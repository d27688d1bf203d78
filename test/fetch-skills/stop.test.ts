import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeSite, makeUpstream, spawnFetcher, startFetcher } from "./helpers.js";

let tree: TempTree;
let upstream: { url: string; commits: string[] };
/** A git config that makes every fetch from upstream wait a few seconds, once it has begun. */
let slowConfig: string;
let marker: string;

beforeAll(async () => {
  tree = await makeTree({});
  upstream = await makeUpstream(path.join(tree.dir, "up"), [
    { "skills/one/SKILL.md": skillMd("one", "The one skill.") },
    { "skills/two/SKILL.md": skillMd("two", "The next skill.") },
  ]);
  marker = path.join(tree.dir, "fetch-started");
  const hook = path.join(tree.dir, "slow-pack-objects.sh");
  // Git runs this in place of pack-objects on the upstream side, while the fetching git holds the store's
  // shallow.lock: the fetch is under way, and the fetcher's git is there to be stopped.
  await writeFile(hook, `#!/bin/sh\necho started > '${marker}'\nsleep 3\nexec "$@"\n`, { mode: 0o755 });
  slowConfig = path.join(tree.dir, "slow.gitconfig");
  await writeFile(slowConfig, `[uploadpack]\n\tpackObjectsHook = ${hook}\n`);
});

afterAll(async () => {
  await tree.remove();
});

/** The processes under `pid` (its children, theirs, …), from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    // The command name, in parentheses, may hold spaces: the fields after its last ")" are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    parents.set(Number(name), ppid);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const [child, of] of parents) {
      if (of === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Whether `pid` still runs (a zombie, ended but not yet reaped, does not). */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

async function waitFor(file: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (
      await readFile(file).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${file} did not appear in 20 s`);
}

describe.skipIf(process.platform !== "linux")("a fetch told to stop", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "stops its git on %s to node alone, removes its work folder and exits %i",
    async (signal, status) => {
      const site = await makeSite(tree.dir, [
        { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
      ]);
      await rm(marker, { force: true });
      const { child, done } = startFetcher(["--cache", "cache"], site, { GIT_CONFIG_GLOBAL: slowConfig });
      await waitFor(marker);
      const pid = child.pid ?? 0;
      const started = await descendants(pid);
      expect(started.length).toBeGreaterThan(0);
      // As a CI runner's cancel or `timeout` does: the signal reaches node, not its process group.
      process.kill(pid, signal);
      const stopped = await done;

      expect(stopped.signal ?? null).toBeNull();
      expect(stopped.code).toBe(status);
      expect(stopped.stderr).toContain(`fetch-skills: stopped by ${signal}: nothing written`);
      const left: number[] = [];
      for (const process of started) if (await running(process)) left.push(process);
      expect(left).toEqual([]);
      expect((await readdir(site)).filter((name) => name.startsWith(".skills-fetch-"))).toEqual([]);
      expect(await readdir(site)).not.toContain("skills");

      // At once, on the same store: nothing of the stopped run holds it.
      const rerun = await spawnFetcher(["--cache", "cache"], site);
      expect(rerun.stderr).not.toContain("shallow.lock");
      expect(rerun.code).toBe(0);
      expect(await readdir(path.join(site, "skills"))).toContain("one");
    },
  );

  it("stopped while --update fetches, leaves skills.toml as it was and no file beside it", async () => {
    const site = await makeSite(tree.dir, [
      { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    const pinned = await readFile(path.join(site, "skills.toml"), "utf8");
    await rm(marker, { force: true });
    const { child, done } = startFetcher(["--update", "--cache", "cache"], site, {
      GIT_CONFIG_GLOBAL: slowConfig,
    });
    await waitFor(marker);
    child.kill("SIGTERM");
    const stopped = await done;

    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toContain("fetch-skills: stopped by SIGTERM: nothing written");
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toBe(pinned);
    expect((await readdir(site)).sort()).toEqual(["cache", "skills.toml"]);
  });
});
