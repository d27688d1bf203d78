import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeSite, makeUpstream, spawnFetcher } from "./helpers.js";

const execFileAsync = promisify(execFile);

let tree: TempTree;
/** A `git` that writes each command line it is given to `log`, then runs the real git. */
let wrapperDir: string;
let log: string;

beforeAll(async () => {
  tree = await makeTree({});
  const realGit = (await execFileAsync("sh", ["-c", "command -v git"])).stdout.trim();
  wrapperDir = path.join(tree.dir, "bin");
  log = path.join(tree.dir, "git-commands.log");
  await mkdir(wrapperDir);
  const wrapper = path.join(wrapperDir, "git");
  await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  await chmod(wrapper, 0o755);
});
afterAll(() => tree.remove());

/** The git subcommand of each command line logged, past the `-c name=value` settings before it. */
async function subcommands(): Promise<string[]> {
  const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line !== "");
  return lines.map((line) => {
    const words = line.split(" ");
    let at = 0;
    while (words[at] === "-c") at += 2;
    return words[at] === "--work-tree" ? (words[at + 2] ?? "") : (words[at] ?? "");
  });
}

describe("the git commands one source runs", () => {
  // Each is a git process: a rev-parse after the shallow fetch, asking whether the pin is a commit, was one
  // of seven for every source fetched; the store's shallow file, which the fetch writes, says so. A `config`
  // naming the store's remote was one of six: the fetch names the URL itself.
  it("fetches a pinned commit into a new store in five, none asking again what the fetch brought", async () => {
    const upstream = await makeUpstream(path.join(tree.dir, "upstream"), [
      { "one/SKILL.md": skillMd("one") },
      { "two/SKILL.md": skillMd("two") },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "kit", repo: upstream.url, ref: upstream.commits[1] ?? "" },
    ]);
    await writeFile(log, "");

    const result = await spawnFetcher(["--cache", "cache"], site, {
      PATH: `${wrapperDir}${path.delimiter}${process.env.PATH ?? ""}`,
    });

    expect(result.code).toBe(0);
    expect(result.stderr).toContain("kit: ");
    expect(result.stderr).toContain(" shallow fetch, 2 skills");
    expect(await subcommands()).toEqual(["init", "fetch", "ls-tree", "read-tree", "update-ref"]);
  });
});
