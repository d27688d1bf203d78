import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoppedError } from "../../scripts/fetch-skills/errors.js";
import { reviewRepin } from "../../scripts/repin-review/index.js";
import { pidOf, ROOT } from "../helpers/process.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeSite, makeUpstream, runFetcher, snapshot, spawnFetcher, startFetcher } from "./helpers.js";

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
      const pid = pidOf(child);
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

      // At once, on the same store: nothing of the stopped run holds it. Run in this process: the store is
      // what is looked at, and a process of its own would load the fetcher again.
      const rerun = await runFetcher(["--cache", "cache"], site);
      expect(rerun.stderr).not.toContain("shallow.lock");
      expect(rerun.code).toBe(0);
      expect(await readdir(path.join(site, "skills"))).toContain("one");
    },
  );

  // Regression: npm hands the signal to the shell that runs the script, which died of it without passing it
  // on (dash, /bin/sh of Debian and of GitHub's Ubuntu runners): npm exited at once while the fetch went on
  // unseen and wrote --out after all.
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "run by npm run fetch-skills, stops on %s to npm alone and exits %i",
    async (signal, status) => {
      const site = await makeSite(tree.dir, [
        { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
      ]);
      await rm(marker, { force: true });
      // npm runs the script in the project folder: every path is given whole.
      const paths = ["--manifest", "skills.toml", "--out", "skills", "--cache", "cache"].map((arg) =>
        arg.startsWith("--") ? arg : path.join(site, arg),
      );
      const { child, done } = startFetcher(paths, ROOT, { GIT_CONFIG_GLOBAL: slowConfig }, "npm");
      await waitFor(marker);
      process.kill(pidOf(child), signal);
      // Resolved once every process that holds npm's stdout and stderr has ended, the fetch's own included.
      const stopped = await done;

      expect(stopped.code, stopped.stderr).toBe(status);
      expect(stopped.stderr).toContain(`fetch-skills: stopped by ${signal}: nothing written`);
      expect((await readdir(site)).sort()).toEqual(["cache", "skills.toml"]);
    },
  );

  // Regression: npm ran the fetcher through tsx's own process, which passes a signal on and, when the
  // fetcher's node has not said within 30 ms that it got it (its event loop busy, a loaded CI runner),
  // kills it with SIGKILL: no message, its git and work folder left behind. Node now runs it itself.
  it("run by npm run fetch-skills, stops cleanly on SIGTERM that comes while its event loop is busy", async () => {
    const site = await makeSite(tree.dir, [
      { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
    ]);
    await rm(marker, { force: true });
    // In the fetcher's process only: 290 ms of every 300 busy, so that the signal comes mid-way through one.
    const busy = path.join(site, "busy.mjs");
    await writeFile(
      busy,
      `if (process.argv[1]?.endsWith(${JSON.stringify(path.join("scripts", "fetch-skills", "index.ts"))})) {
  setInterval(() => { const end = Date.now() + 290; while (Date.now() < end); }, 300).unref();
}
`,
    );
    const paths = ["--manifest", "skills.toml", "--out", "skills", "--cache", "cache"].map((arg) =>
      arg.startsWith("--") ? arg : path.join(site, arg),
    );
    const { child, done } = startFetcher(
      paths,
      ROOT,
      { GIT_CONFIG_GLOBAL: slowConfig, NODE_OPTIONS: `--import=${pathToFileURL(busy).href}` },
      "npm",
    );
    await waitFor(marker);
    process.kill(pidOf(child), "SIGTERM");
    const stopped = await done;

    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stderr).toContain("fetch-skills: stopped by SIGTERM: nothing written");
    expect((await readdir(site)).sort()).toEqual(["busy.mjs", "cache", "skills.toml"]);
  });

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

// A run killed between its two renames (the old folder moved into the work folder, the new one not yet in
// place) left no --out at all, and the next run removed the work folder holding the old one: the server
// had no skills, and a --source run dropped every pack it did not fetch.
describe.skipIf(process.platform !== "linux")("a fetch killed while it swaps the new folder in", () => {
  it.each([
    ["a folder", false],
    ["a symlink to a folder", true],
  ])(
    "leaves the previous folder for the next run, which puts it back first (--out %s)",
    async (_, linked) => {
      const two = await makeUpstream(await mkdtemp(path.join(tree.dir, "two-")), [
        { "s/SKILL.md": skillMd("s") },
      ]);
      const site = await makeSite(tree.dir, [
        { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
        { name: "two", repo: two.url, ref: two.commits[0] ?? "" },
      ]);
      // A symlinked --out is replaced where it leads, and left dangling by the kill.
      const out = path.join(site, linked ? "data/skills" : "skills");
      if (linked) {
        await mkdir(out, { recursive: true });
        await symlink("data/skills", path.join(site, "skills"));
      }
      // The runs before and after the kill in this process: only the killed one needs a process of its own.
      expect((await runFetcher([], site)).code).toBe(0);
      const fetched = await snapshot(out);
      // Kills the fetcher right after it renamed --out into its work folder, before the new one takes its place.
      const killer = path.join(site, "kill-mid-swap.mjs");
      await writeFile(
        killer,
        `import promises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
const rename = promises.rename;
promises.rename = async (from, to) => {
  await rename(from, to);
  if (String(from) === ${JSON.stringify(out)}) process.kill(process.pid, "SIGKILL");
};
syncBuiltinESMExports();
`,
      );

      const killed = await spawnFetcher([], site, { NODE_OPTIONS: `--import=${pathToFileURL(killer).href}` });
      expect(killed.signal).toBe("SIGKILL");
      await rm(killer);

      const rerun = await runFetcher(["--source", "one"], site);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toContain(`fetch-skills: put back ${out}, which a run killed while it swapped`);
      expect(rerun.stderr).toContain("two: kept as fetched before");
      expect(await snapshot(out)).toEqual({ ...fetched, "sources.json": expect.any(String) });
      expect((await readdir(path.dirname(out))).sort()).toEqual(
        linked ? ["skills"] : ["skills", "skills.toml"],
      );
      if (linked) expect((await lstat(path.join(site, "skills"))).isSymbolicLink()).toBe(true);
    },
  );
});

// The review ran on to its end whatever signal came: its fetch of the old commits took a stopped git for
// a commit gone upstream, and its reading and comparing never looked at the signal, so the run stopped
// by SIGTERM exited 0 with its summary, long after.
describe("a repin review told to stop", () => {
  it("stops between its steps, rejecting with the reason it was given", async () => {
    const sides: Record<string, string> = {};
    for (const [side, version] of [
      ["before", "v1"],
      ["after", "v2"],
    ] as const) {
      for (let index = 0; index < 20; index++) {
        sides[`${side}/pack/s${index}/SKILL.md`] = skillMd(`s${index}`, `Skill ${index}, ${version}.`);
      }
    }
    const folders = await makeTree(sides);
    try {
      const stop = new AbortController();
      const reason = new StoppedError("SIGTERM");
      const review = reviewRepin({
        before: path.join(folders.dir, "before"),
        after: path.join(folders.dir, "after"),
        sources: [
          {
            name: "pack",
            repo: "file:///pack",
            path: ".",
            extras: [],
            from: "a".repeat(40),
            to: "b".repeat(40),
          },
        ],
        budget: 52_000,
        signal: stop.signal,
      });
      // As the signal's handler does: it runs once the review lets the event loop turn.
      setImmediate(() => stop.abort(reason));
      await expect(review).rejects.toBe(reason);
    } finally {
      await folders.remove();
    }
  });

  it.skipIf(process.platform !== "linux")(
    "exits 143 on SIGTERM while it fetches the old commits, saying the review was not done",
    async () => {
      const site = await makeSite(tree.dir, [
        { name: "one", repo: upstream.url, ref: upstream.commits[0] ?? "" },
      ]);
      // Each fetch from upstream appends a line: the second is the review's, of the old commit, which waits
      // a few seconds to be stopped under way. The first, of the new commit, has nothing to wait for.
      const fetches = path.join(tree.dir, "fetches");
      const hook = path.join(tree.dir, "counting-pack-objects.sh");
      await writeFile(
        hook,
        `#!/bin/sh\necho started >> '${fetches}'\n[ "$(wc -l < '${fetches}')" -lt 2 ] || sleep 3\nexec "$@"\n`,
        { mode: 0o755 },
      );
      const config = path.join(tree.dir, "counting.gitconfig");
      await writeFile(config, `[uploadpack]\n\tpackObjectsHook = ${hook}\n`);
      await rm(fetches, { force: true });
      const { child, done } = startFetcher(["--update", "--summary", "pr.md"], site, {
        GIT_CONFIG_GLOBAL: config,
      });
      for (let tries = 0; tries < 300; tries++) {
        const lines = await readFile(fetches, "utf8").catch(() => "");
        if (lines.split("\n").length > 2) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.kill("SIGTERM");
      const stopped = await done;

      expect(stopped.code, stopped.stderr).toBe(143);
      expect(stopped.stderr).toContain(
        "fetch-skills: stopped by SIGTERM: skills.toml and " +
          `${path.join(site, "skills")} hold the new commits, but the review was not done`,
      );
      expect(stopped.stdout).toBe("");
      expect((await readdir(site)).sort()).toEqual(["skills", "skills.toml"]);
    },
  );
});
