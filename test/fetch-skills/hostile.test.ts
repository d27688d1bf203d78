import { execFile, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { SOURCE_LIMITS, SourceBudget } from "../../scripts/fetch-skills/copy.js";
import { builtModule } from "../helpers/built-scripts.js";
import { makeTree, skillMd, type TempTree, writeTree } from "../helpers/skill-tree.js";
import { git, makeSite, makeUpstream, runFetcher, snapshot, spawnFetcher } from "./helpers.js";

/** Issue 24: what a hostile upstream repository, or a stopped run, did to the fetcher. */

const execFileAsync = promisify(execFile);

let tree: TempTree;
beforeAll(async () => {
  tree = await makeTree({});
});
afterAll(() => tree.remove());

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

describe("fetch-skills: symlinks that bring a folder in many times", () => {
  it("copies a folder once where two links reach it at every level (it copied it 2^levels times)", async () => {
    // level-k/a and level-k/b both lead to level-(k+1): 10 levels were 1,024 copies of the last one.
    const levels = 10;
    const files: Record<string, string | { symlink: string }> = { "skills/dag/SKILL.md": skillMd("dag") };
    for (let level = 0; level < levels; level++) {
      const from = level === 0 ? "skills/dag" : `levels/${level}`;
      files[`${from}/a`] = { symlink: path.relative(from, `levels/${level + 1}`) };
      files[`${from}/b`] = { symlink: path.relative(from, `levels/${level + 1}`) };
    }
    files[`levels/${levels}/leaf.md`] = "leaf\n";
    const repo = await makeUpstream(path.join(tree.dir, "dag"), [files]);
    const site = await makeSite(tree.dir, [
      { name: "dag", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    // The skill, and one copy of the leaf down each of the two links of the skill folder.
    expect(await countFiles(path.join(site, "skills/dag"))).toBe(3);
    const leaf = `dag/${"a/".repeat(levels - 1)}a/leaf.md`;
    expect(await readFile(path.join(site, "skills/dag", leaf), "utf8")).toBe("leaf\n");
    expect(result.stderr).toContain(
      "dag: skipped skills/dag/a/b: symlink to a folder the link skills/dag/a already brought in, as skills/dag/a/a",
    );
    const sources = JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources;
    expect(sources[0].skipped).toHaveLength(2 * (levels - 1));
  });

  it("still gives each skill that links one shared folder its own copy", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "shared"), [
      {
        "skills/one/SKILL.md": skillMd("one"),
        "skills/one/references": { symlink: "../../shared" },
        "skills/two/SKILL.md": skillMd("two"),
        "skills/two/references": { symlink: "../../shared" },
        "shared/guide.md": "guide\n",
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "s", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);
    const result = await runFetcher([], site);
    expect(result.code, result.stderr).toBe(0);
    expect(await snapshot(path.join(site, "skills/s"))).toEqual({
      "one/SKILL.md": skillMd("one"),
      "one/references/guide.md": "guide\n",
      "two/SKILL.md": skillMd("two"),
      "two/references/guide.md": "guide\n",
    });
  });

  it("refuses a source that brings more files or bytes than a source may, naming it and the limit", async () => {
    // 30 links to one folder of 30 files: 900 files from a repository of 60 entries.
    const files: Record<string, string | Buffer | { symlink: string }> = {
      "skills/big/SKILL.md": skillMd("big"),
      "skills/big/assets/data.bin": Buffer.alloc(1536 * 1024),
    };
    for (let i = 0; i < 30; i++) files[`shared/file-${i}.md`] = `${i}\n`;
    for (let i = 0; i < 30; i++) files[`skills/big/copy-${i}`] = { symlink: "../../shared" };
    const repo = await makeUpstream(path.join(tree.dir, "many"), [files]);
    const ref = repo.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "many", repo: repo.url, ref, path: "skills" }]);

    const tooMany = await runFetcher(["--max-files", "500"], site);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(
      `fetch-skills: source "many": brings more than 500 files, the most one source may bring (each copy a symlink makes counts; --max-files sets it) (${ref})`,
    );
    const tooLarge = await runFetcher(["--max-mib", "1"], site);
    expect(tooLarge.code).toBe(1);
    expect(tooLarge.stderr).toContain(
      'fetch-skills: source "many": brings more than 1 MiB, the most one source',
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
    expect((await runFetcher(["--max-files", "1000", "--max-mib", "2"], site)).code).toBe(0);
  });

  // Regression: a folder cost nothing, and a link copied each folder of its target: 200 links to a folder
  // of 200 folders holding only hidden files wrote 40,000 empty folders from 400 files, in 7.7 s.
  it("counts the folders a source brings against its files limit, each copy a symlink makes too", async () => {
    const files: Record<string, string | { symlink: string }> = {
      "skills/hollow/SKILL.md": skillMd("hollow"),
    };
    for (let i = 0; i < 40; i++) files[`shared/folder-${i}/.keep`] = "";
    for (let i = 0; i < 40; i++) files[`skills/hollow/copy-${i}`] = { symlink: "../../shared" };
    const repo = await makeUpstream(path.join(tree.dir, "hollow"), [files]);
    const ref = repo.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "hollow", repo: repo.url, ref, path: "skills" }]);

    // 40 links, each bringing the shared folder and its 40 folders: 1,642 folders, 1 file.
    const tooMany = await runFetcher(["--max-files", "1000"], site);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(
      `fetch-skills: source "hollow": brings more than 1,000 folders, the most one source may bring (each copy a symlink makes counts; --max-files sets it) (${ref})`,
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
    expect((await runFetcher(["--max-files", "2000"], site)).code).toBe(0);
  });

  // Regression: a link repeated the warnings of its target: 200 links to a folder of 200 dangling symlinks
  // warned 40,000 times, each a line of stderr and of sources.json.
  it("counts what a source leaves out against its files limit, each copy a symlink makes too", async () => {
    const files: Record<string, string | { symlink: string }> = {
      "skills/dangling/SKILL.md": skillMd("dangling"),
    };
    for (let i = 0; i < 30; i++) files[`shared/gone-${i}`] = { symlink: `missing-${i}` };
    for (let i = 0; i < 40; i++) files[`skills/dangling/copy-${i}`] = { symlink: "../../shared" };
    const repo = await makeUpstream(path.join(tree.dir, "dangling"), [files]);
    const ref = repo.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "dangling", repo: repo.url, ref, path: "skills" }]);

    // 40 links, each bringing the shared folder's 30 dangling symlinks: 1,200 left out.
    const tooMany = await runFetcher(["--max-files", "1000"], site);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(
      `fetch-skills: source "dangling": leaves out more than 1,000 files and folders, the most one source may (each copy a symlink makes counts; --max-files sets it) (${ref})`,
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
    expect((await runFetcher(["--max-files", "2000"], site)).code).toBe(0);
  });

  // Regression: git wrote the whole repository at the pin before anything was counted, and a file of a
  // gigabyte of zeros takes a megabyte of the repository: one outside the source's path filled the disk.
  it("refuses a source whose checkout would write more than 4 times its limits, before writing it", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "bomb"), [
      { "skills/small/SKILL.md": skillMd("small"), "videos/zeros.bin": Buffer.alloc(5 * 1024 * 1024) },
    ]);
    const ref = repo.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "bomb", repo: repo.url, ref, path: "skills" }]);

    const refused = await runFetcher(["--max-mib", "1"], site);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `fetch-skills: source "bomb": its checkout would write at least 2 files of 6 MiB, where a checkout of the whole repository may write 80,000 files and 4 MiB, 4 times what one source may bring (--max-files and --max-mib set them) (${ref})`,
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
    expect((await runFetcher(["--max-mib", "2"], site)).code).toBe(0);
  });

  // Regression: the pinned commit was fetched into the store whole before any size was checked, and git
  // bounds no fetch: 40 files of 95 MB of random bytes (which no pack compresses) filled the build
  // machine's disk, and the checkout's check refused the source only once they were there.
  it("stops a fetch that brings more than 4 times its limit, and leaves nothing of it in the store", async () => {
    const random = (mib: number) => randomBytes(mib * 1024 * 1024);
    const repo = await makeUpstream(path.join(tree.dir, "noise"), [
      { "skills/small/SKILL.md": skillMd("small"), "noise/a.bin": random(3), "noise/b.bin": random(3) },
    ]);
    const ref = repo.commits[0] ?? "";
    // Held by no branch: the server refuses it, and the whole history is fetched, moving the store's refs.
    const unheld = "0123456789abcdef0123456789abcdef01234567";
    for (const pin of [ref, unheld]) {
      const site = await makeSite(tree.dir, [{ name: "noise", repo: repo.url, ref: pin, path: "skills" }]);
      const refused = await runFetcher(["--max-mib", "1", "--cache", "cache"], site);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `fetch-skills: source "noise": fetching ${repo.url} brought more than 4 MiB, the most a fetch of one source may bring, as its checkout may write (4 times what one source may bring; --max-mib sets it): stopped, and what it brought removed from the store (${pin})`,
      );
      expect(await readdir(site)).toEqual(["cache", "skills.toml"]);
      const [store = ""] = await readdir(path.join(site, "cache"));
      expect(await readdir(path.join(site, "cache", store, "objects/pack"))).toEqual([]);
      expect(await readdir(path.join(site, "cache", store))).not.toContain("shallow");
      expect(await git(path.join(site, "cache", store), "for-each-ref")).toBe("");
    }
    // The store left is whole: within a larger limit the same pin is fetched into it.
    const site = await makeSite(tree.dir, [{ name: "noise", repo: repo.url, ref, path: "skills" }]);
    expect((await runFetcher(["--max-mib", "1", "--cache", "cache"], site)).code).toBe(1);
    const fetched = await runFetcher(["--max-mib", "2", "--cache", "cache"], site);
    expect(fetched.code, fetched.stderr).toBe(0);
  });

  // Regression: the bound set `fetch.unpackLimit`, which a fetch reads only when `transfer.unpackLimit` is
  // unset: a build machine whose git config set the latter had a fetch of a few huge objects written as loose
  // objects, never measured, and the fetch passed its bound (refused only later, by the checkout's count).
  it("stops a fetch past its bound whatever unpack limit the build machine's git config sets", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "loose"), [
      { "skills/small/SKILL.md": skillMd("small"), "noise/a.bin": randomBytes(3 << 20) },
      { "noise/b.bin": randomBytes(3 << 20) },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "loose", repo: repo.url, ref: repo.commits[1] ?? "", path: "skills" },
    ]);
    const config = path.join(site, "gitconfig");
    await writeFile(config, "[transfer]\n\tunpackLimit = 1000\n");
    const refused = await spawnFetcher(["--max-mib", "1", "--cache", "cache"], site, {
      GIT_CONFIG_GLOBAL: config,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`fetching ${repo.url} brought more than 4 MiB`);
    const [store = ""] = await readdir(path.join(site, "cache"));
    const objects = await readdir(path.join(site, "cache", store, "objects"), { recursive: true });
    expect(objects.filter((name) => /^[0-9a-f]{2}\/[0-9a-f]+$/.test(name))).toEqual([]);
  });

  // Regression: the tree's listing was held whole before it was counted, and a repository of kilobytes
  // whose folders each hold the next ten times lists a million files: 420 MB and 12 s of CPU to refuse.
  it("counts a checkout's files as git lists them, and stops at the first past its limit", async () => {
    const dir = path.join(tree.dir, "git-bomb");
    const repo = await makeUpstream(dir, [{ "skills/small/SKILL.md": skillMd("small") }]);
    const mktree = (lines: string[]) =>
      execFileSync("git", ["mktree"], { cwd: dir, input: `${lines.join("\n")}\n` })
        .toString()
        .trim();
    const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: "x" })
      .toString()
      .trim();
    let bomb = mktree([`100644 blob ${blob}\tf`]);
    for (let level = 0; level < 5; level++) {
      bomb = mktree(Array.from({ length: 10 }, (_, at) => `040000 tree ${bomb}\td${at}`));
    }
    const skills = await git(dir, "rev-parse", "HEAD:skills");
    const root = mktree([`040000 tree ${bomb}\tbomb`, `040000 tree ${skills}\tskills`]);
    const ref = await git(dir, "commit-tree", root, "-m", "ten of each folder, five deep");
    const site = await makeSite(tree.dir, [{ name: "bomb", repo: repo.url, ref, path: "skills" }]);

    const refused = await runFetcher(["--max-files", "10"], site);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'fetch-skills: source "bomb": its checkout would write at least 41 files of 1 MiB, where a checkout of the whole repository may write 40 files',
    );
    expect(await readdir(site)).toEqual(["skills.toml"]);
  });

  // Regression: the checkout applied the repository's own .gitattributes, so a file's blob (what the
  // checkout's size check counts) was not what git wrote: `ident` turns each 4-byte `$Id$` into 47 bytes
  // (a 1 MiB blob, some 8 KiB of the repository, wrote 11.75 MiB), `eol=crlf` doubles a file of line
  // breaks, and a `filter` ran whatever the build machine configures for it (git-lfs' smudge, which
  // downloads from a URL the repository's .lfsconfig names) on upstream's files.
  it("writes each file as its blob holds it, whatever the repository's .gitattributes ask of a checkout", async () => {
    const ids = "$Id$\n".repeat(200_000);
    const repo = await makeUpstream(path.join(tree.dir, "attributes"), [
      {
        ".gitattributes": "* ident\n*.txt eol=crlf\nfiltered.md filter=smudged\n",
        "skills/stamped/SKILL.md": skillMd("stamped"),
        "skills/stamped/ids.md": ids,
        "skills/stamped/lines.txt": "line\n".repeat(3),
        "skills/stamped/filtered.md": "as committed\n",
      },
    ]);
    const ref = repo.commits[0] ?? "";
    const site = await makeSite(tree.dir, [{ name: "stamped", repo: repo.url, ref, path: "skills" }]);
    // A filter the build machine's git knows, as git-lfs configures `filter.lfs` for every repository.
    const marker = path.join(tree.dir, "smudge-ran");
    const config = path.join(tree.dir, "attributes-gitconfig");
    await writeFile(config, `[filter "smudged"]\n\tsmudge = "touch '${marker}'; cat"\n`);
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = config;
    onTestFinished(() => {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    });

    const result = await runFetcher(["--max-mib", "2"], site);

    expect(result.code, result.stderr).toBe(0);
    const skill = path.join(site, "skills/stamped/stamped");
    expect(await readFile(path.join(skill, "ids.md"), "utf8")).toBe(ids);
    expect(await readFile(path.join(skill, "lines.txt"), "utf8")).toBe("line\n".repeat(3));
    expect(await readFile(path.join(skill, "filtered.md"), "utf8")).toBe("as committed\n");
    expect(await readdir(tree.dir)).not.toContain("smudge-ran");
  });

  // Regression: a submodule was not counted, and each checks out as an empty folder.
  it("counts each submodule of the checkout as a file", async () => {
    const dir = path.join(tree.dir, "gitlinks");
    const repo = await makeUpstream(dir, [{ "skills/small/SKILL.md": skillMd("small") }]);
    const commit = await git(dir, "rev-parse", "HEAD");
    const links = Array.from({ length: 8 }, (_, at) => `160000 commit ${commit}\tlink-${at}`);
    const linked = execFileSync("git", ["mktree", "--missing"], { cwd: dir, input: `${links.join("\n")}\n` })
      .toString()
      .trim();
    const skills = await git(dir, "rev-parse", "HEAD:skills");
    const root = execFileSync("git", ["mktree"], {
      cwd: dir,
      input: `040000 tree ${linked}\tlinks\n040000 tree ${skills}\tskills\n`,
    })
      .toString()
      .trim();
    const ref = await git(dir, "commit-tree", root, "-m", "eight submodules");
    const site = await makeSite(tree.dir, [{ name: "links", repo: repo.url, ref, path: "skills" }]);

    const refused = await runFetcher(["--max-files", "1"], site);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'fetch-skills: source "links": its checkout would write at least 5 files of 0 MiB, where a checkout of the whole repository may write 4 files',
    );
  });

  it("allows a source 20,000 files and 512 MiB unless told otherwise", () => {
    const budget = new SourceBudget(SOURCE_LIMITS);
    for (let file = 0; file < 20_000; file++) budget.take(26_000);
    expect(() => budget.take(0)).toThrow("brings more than 20,000 files");
    expect(() => new SourceBudget(SOURCE_LIMITS).take(512 * 1024 * 1024 + 1)).toThrow(
      "brings more than 512 MiB",
    );
  });

  it("names a limit of one in the singular", () => {
    const one = { files: 1, bytes: 1024 * 1024 };
    const files = new SourceBudget(one);
    files.take(1);
    expect(() => files.take(1)).toThrow("brings more than 1 file, the most");
    const folders = new SourceBudget(one);
    folders.takeFolder();
    expect(() => folders.takeFolder()).toThrow("brings more than 1 folder, the most");
    expect(() => new SourceBudget(one).take(1024 * 1024 + 1)).toThrow("brings more than 1 MiB, the most");
    const skipped = new SourceBudget(one);
    skipped.takeSkipped();
    expect(() => skipped.takeSkipped()).toThrow("leaves out more than 1 file or folder, the most");
  });
});

describe("fetch-skills: names and files it cannot copy", () => {
  it("skips a file or folder whose name is not UTF-8 with a warning, and fetches the rest", async () => {
    const dir = path.join(tree.dir, "latin1");
    const repo = await makeUpstream(dir, [{ "skills/a/SKILL.md": skillMd("a") }]);
    const name = (text: string) =>
      Buffer.concat([Buffer.from(`${dir}/skills/a/`), Buffer.from(text, "latin1")]);
    await writeFile(name("caf\xe9.txt"), "latin-1 name\n");
    await mkdir(name("r\xe9sum\xe9"));
    await writeFile(Buffer.concat([name("r\xe9sum\xe9"), Buffer.from("/inside.md")]), "inside\n");
    await git(dir, "add", "--all");
    await git(dir, "commit", "--quiet", "-m", "names in Latin-1");
    const ref = await git(dir, "rev-parse", "HEAD");
    const site = await makeSite(tree.dir, [{ name: "l", repo: repo.url, ref, path: "skills" }]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("l: skipped skills/a/caf\\xe9.txt: its name is not UTF-8");
    expect(result.stderr).toContain("l: skipped skills/a/r\\xe9sum\\xe9: its name is not UTF-8");
    expect(await snapshot(path.join(site, "skills/l"))).toEqual({ "a/SKILL.md": skillMd("a") });
  });

  // Regression: `{U+200C}.git` (which macOS's HFS+ reads as `.git`) was copied, as was `aux.txt` (a device on
  // Windows): the server leaves such names out, and sync could not write them on the user's machine.
  it("skips a file or folder whose name not every system can hold, as the server would, and fetches the rest", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "unportable"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/references/kept.md": "kept\n",
        "skills/a/\u200c.git/config": "[core]\n\tfsmonitor = touch /tmp/pwned\n",
        "skills/a/references/aux.txt": "a device on Windows\n",
        "skills/a/references/notes.": "cut on Windows\n",
        "skills/a/references/a:b.md": "a stream on Windows\n",
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "u", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const why = (problem: string) =>
      `its name is not one every system can hold (${problem}), so the server would not serve it`;
    expect(result.stderr).toContain(
      `u: skipped skills/a/{U+200C}.git: ${why('a name macOS or Windows reads as .git: "{U+200C}.git" (a .git folder or file would make the folder a git repository of its own, whose config runs commands)')}\n`,
    );
    expect(result.stderr).toContain(
      `u: skipped skills/a/references/aux.txt: ${why('a name is a device on Windows: "aux.txt"')}\n`,
    );
    expect(result.stderr).toContain(
      `u: skipped skills/a/references/notes.: ${why('a name ends in a dot or a space, which Windows drops: "notes."')}\n`,
    );
    expect(result.stderr).toContain(`u: skipped skills/a/references/a:b.md: ${why('a name holds ":"')}\n`);
    expect(await snapshot(path.join(site, "skills/u"))).toEqual({
      "a/SKILL.md": skillMd("a"),
      "a/references/kept.md": "kept\n",
    });
  });

  // Regression: both were copied, the server served both, and sync skipped the whole skill on every system
  // (a case-insensitive disk holds one of them). The fetcher keeps the one the server would serve.
  it("copies one of two names that differ only in case, the one the server would serve, and skips the other", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "cased"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/skill.md": "a second document\n",
        "skills/a/references/Guide.md": "upper\n",
        "skills/a/references/guide.md": "lower\n",
        "skills/a/Scripts/run.sh": "echo upper\n",
        "skills/a/scripts/check.sh": "echo lower\n",
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "c", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const why = (kept: string) =>
      `it is "${kept}" in another letter case or Unicode normalization, which a case-insensitive file system (macOS, Windows) holds one of: that one is copied instead`;
    expect(result.stderr).toContain(`c: skipped skills/a/Scripts: ${why("skills/a/scripts")}\n`);
    expect(result.stderr).toContain(
      `c: skipped skills/a/references/Guide.md: ${why("skills/a/references/guide.md")}\n`,
    );
    expect(result.stderr).toContain(`c: skipped skills/a/skill.md: ${why("skills/a/SKILL.md")}\n`);
    expect(await snapshot(path.join(site, "skills/c"))).toEqual({
      "a/SKILL.md": skillMd("a"),
      "a/references/guide.md": "lower\n",
      "a/scripts/check.sh": "echo lower\n",
    });
  });

  // Regression: the spelling kept was chosen before the symlinks were checked, so where it was a symlink
  // leading out of the repository (or a Git LFS pointer), both spellings were left out.
  it("of two names that differ only in case, copies the one it can where the other is left out for itself", async () => {
    const lfs = `version https://git-lfs.github.com/spec/v1\noid sha256:${"a".repeat(64)}\nsize 12\n`;
    const repo = await makeUpstream(path.join(tree.dir, "cased-links"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/references/Guide.md": "upper\n",
        "skills/a/references/guide.md": { symlink: "/etc/passwd" },
        "skills/a/Notes.md": "notes\n",
        "skills/a/notes.md": lfs,
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "k", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'k: skipped skills/a/references/guide.md: symlink pointing outside the repository, to "/etc/passwd"\n',
    );
    expect(result.stderr).toContain("k: skipped skills/a/notes.md: a Git LFS pointer");
    expect(result.stderr).not.toContain("in another letter case");
    expect(await snapshot(path.join(site, "skills/k"))).toEqual({
      "a/Notes.md": "notes\n",
      "a/SKILL.md": skillMd("a"),
      "a/references/Guide.md": "upper\n",
    });
  });

  // Regression: the spelling kept was chosen before the walk reached it, so where it was a symlink to a
  // folder the walk then refused (one above it, or one its link had brought in already), both spellings
  // were left out.
  it("of two names that differ only in case, copies the other where the walk refuses a symlink to a folder", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "cased-loops"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/Docs/guide.md": "upper\n",
        "skills/a/docs": { symlink: "." },
        "skills/a/shared": { symlink: "../../lib" },
        "lib/0": { symlink: "sub" },
        "lib/Data/guide.md": "data\n",
        "lib/data": { symlink: "sub" },
        "lib/sub/x.md": "x\n",
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "l", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("l: skipped skills/a/docs: symlink loops back to a parent folder\n");
    expect(result.stderr).toContain(
      "l: skipped skills/a/shared/data: symlink to a folder the link skills/a/shared already brought in, as skills/a/shared/0\n",
    );
    expect(result.stderr).not.toContain("in another letter case");
    expect(await snapshot(path.join(site, "skills/l"))).toEqual({
      "a/Docs/guide.md": "upper\n",
      "a/SKILL.md": skillMd("a"),
      "a/shared/0/x.md": "x\n",
      "a/shared/Data/guide.md": "data\n",
      "a/shared/sub/x.md": "x\n",
    });
  });

  // The log is a terminal or a CI run's log: a newline in a name started a GitHub workflow command
  // (a fake "All clear" annotation, ::add-mask::) and ESC sequences erased the lines above.
  it("shows control characters of the names it warns about escaped, so none starts a line of its own", async () => {
    const hostile = "x\n::error title=All clear::No finding\n\u001b[2K\u001b[1AOK\u2028";
    const repo = await makeUpstream(path.join(tree.dir, "log"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        [`skills/a/${hostile}`]: { symlink: "/etc/passwd" },
        [`extra/${hostile}/SKILL.md`]: skillMd("b"),
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "g", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills", extras: ["extra"] },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const shown = "x{U+000A}::error title=All clear::No finding{U+000A}{U+001B}[2K{U+001B}[1AOK{U+2028}";
    expect(result.stderr).toContain(
      `g: skipped skills/a/${shown}: symlink pointing outside the repository, to "/etc/passwd"\n`,
    );
    // A folder of such a name is not copied (the server would not serve it): the line skipping it shows it so.
    expect(result.stderr).toContain(
      `g: skipped extra/${shown}: its name is not one every system can hold (a name holds a control character (U+000A)), so the server would not serve it\n`,
    );
    expect(result.stderr.split("\n").filter((line) => !line.startsWith("g: "))).toEqual([""]);
    expect(result.stderr).not.toContain("\u001b");
    expect(result.stderr).not.toContain("\u2028");
  });

  // A submodule is checked out as an empty folder: the skills kept in one were missing from the pack, and
  // nothing said why (at most "no SKILL.md", when the whole pack was one).
  it("names each submodule in the pack's path or extras, which it does not fetch", async () => {
    const dir = path.join(tree.dir, "submodules");
    await makeUpstream(dir, [{ "skills/a/SKILL.md": skillMd("a"), "shared/guide.md": "guide\n" }]);
    const other = await git(dir, "rev-parse", "HEAD");
    for (const gitlink of ["skills/vendored", "shared/lib", "skills/.hidden/lib", "elsewhere/lib"]) {
      await git(dir, "update-index", "--add", "--cacheinfo", `160000,${other},${gitlink}`);
    }
    await git(dir, "commit", "--quiet", "-m", "submodules");
    const ref = await git(dir, "rev-parse", "HEAD");
    const site = await makeSite(tree.dir, [
      { name: "m", repo: pathToFileURL(dir).href, ref, path: "skills", extras: ["shared"] },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const reason = "a git submodule, which is not fetched: pin its repository as a source of its own";
    expect(result.stderr.split("\n").filter((line) => line.includes("submodule"))).toEqual([
      `m: skipped shared/lib: ${reason}`,
      `m: skipped skills/vendored: ${reason}`,
    ]);
    expect(await readFile(path.join(site, "skills/m/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  // Regression: the submodules were listed by `git ls-tree` with path and extras as its pathspecs, which
  // read a folder named ":!skills" as "all but skills" (and refused it: the whole source failed) and
  // ":vendor" as "vendor" (naming that folder's submodules, not this one's).
  it("names the submodules of a path whose name opens with a colon, as pathspec magic would not", async () => {
    const dir = path.join(tree.dir, "colon");
    await makeUpstream(dir, [
      { ":!skills/a/SKILL.md": skillMd("a"), ":vendor/guide.md": "guide\n", "vendor/guide.md": "guide\n" },
    ]);
    const other = await git(dir, "rev-parse", "HEAD");
    for (const gitlink of [":!skills/lib", ":vendor/lib", "vendor/other"]) {
      await git(dir, "update-index", "--add", "--cacheinfo", `160000,${other},${gitlink}`);
    }
    await git(dir, "commit", "--quiet", "-m", "submodules");
    const ref = await git(dir, "rev-parse", "HEAD");
    const site = await makeSite(tree.dir, [
      { name: "c", repo: pathToFileURL(dir).href, ref, path: ":!skills", extras: [":vendor"] },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const reason = "a git submodule, which is not fetched: pin its repository as a source of its own";
    expect(result.stderr.split("\n").filter((line) => line.includes("submodule"))).toEqual([
      `c: skipped :!skills/lib: ${reason}`,
      `c: skipped :vendor/lib: ${reason}`,
    ]);
    expect(await readFile(path.join(site, "skills/c/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  // Without Git LFS, a checkout holds a pointer of three lines where the file should be: the pack served it
  // as the skill's font or template, and nothing said so.
  it("skips a Git LFS pointer with a warning naming it, in path and in extras", async () => {
    const pointer = (seed: string) =>
      `version https://git-lfs.github.com/spec/v1\noid sha256:${seed.repeat(64)}\nsize 48213\n`;
    const repo = await makeUpstream(path.join(tree.dir, "lfs"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/assets/font.ttf": pointer("a"),
        "skills/a/notes.md": `How pointers look:\n\n${pointer("b")}`,
        "shared/template.pptx": pointer("c"),
      },
    ]);
    const site = await makeSite(tree.dir, [
      {
        name: "lfs",
        repo: repo.url,
        ref: repo.commits[0] ?? "",
        path: "skills",
        extras: ["shared/template.pptx"],
      },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const reason = "a Git LFS pointer, not the file it stands for: Git LFS content is not fetched";
    expect(result.stderr).toContain(`lfs: skipped skills/a/assets/font.ttf: ${reason}\n`);
    expect(result.stderr).toContain(`lfs: skipped shared/template.pptx: ${reason}\n`);
    expect(Object.keys(await snapshot(path.join(site, "skills/lfs")))).toEqual(["a/SKILL.md", "a/notes.md"]);
  });

  it("calls a symlink loop a loop, not a dangling symlink", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "loop"), [
      {
        "skills/a/SKILL.md": skillMd("a"),
        "skills/a/one": { symlink: "two" },
        "skills/a/two": { symlink: "one" },
        "skills/a/gone": { symlink: "missing.md" },
      },
    ]);
    const site = await makeSite(tree.dir, [
      { name: "loop", repo: repo.url, ref: repo.commits[0] ?? "", path: "skills" },
    ]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    const sources = JSON.parse(await readFile(path.join(site, "skills/sources.json"), "utf8")).sources;
    expect(sources[0].skipped).toEqual([
      { path: "a/gone", reason: 'dangling symlink, to "missing.md"' },
      { path: "a/one", reason: "symlink loop: it leads back to itself" },
      { path: "a/two", reason: "symlink loop: it leads back to itself" },
    ]);
  });

  it("skips a file or folder it may not read, and copies the rest", async () => {
    const repo = path.join(tree.dir, "locked");
    await writeTree(repo, {
      "skills/a/SKILL.md": skillMd("a"),
      "skills/a/secret.md": "secret\n",
      "skills/a/closed/inside.md": "inside\n",
    });
    await chmod(path.join(repo, "skills/a/secret.md"), 0o000);
    await chmod(path.join(repo, "skills/a/closed"), 0o000);
    const out = path.join(tree.dir, "locked-out");
    await mkdir(out, { mode: 0o777 });
    await chmod(out, 0o777);
    await chmod(tree.dir, 0o755);
    // Root reads everything: the copy runs as nobody then, in a process of its own.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const copy = builtModule("scripts/fetch-skills/copy.ts");
    const script = `import { copyFromRepository, SOURCE_LIMITS, SourceBudget } from ${JSON.stringify(copy)};
      const budget = new SourceBudget(SOURCE_LIMITS);
      const skipped = await copyFromRepository(${JSON.stringify(repo)}, "skills", ${JSON.stringify(path.join(out, "p"))}, { allowFile: false, budget });
      console.log(JSON.stringify(skipped));`;
    const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "--eval", script], {
      ...user,
      cwd: tree.dir,
    });

    expect(JSON.parse(stdout)).toEqual([
      // The code in words, as the server and the audit say it of a file they cannot read.
      { path: "skills/a/closed", reason: "cannot be read: permission denied (EACCES)", symlink: false },
      { path: "skills/a/secret.md", reason: "cannot be read: permission denied (EACCES)", symlink: false },
    ]);
    expect(await readFile(path.join(out, "p/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
    await chmod(path.join(repo, "skills/a/closed"), 0o755);
  });

  it("skips a file it cannot read (its path passes PATH_MAX once checked out) with a warning", async () => {
    // Git writes paths relative to the work tree; the fetcher reads them whole, and the kernel refuses
    // paths of 4,096 bytes and more, to root too.
    const dir = path.join(tree.dir, "deep");
    const repo = await makeUpstream(dir, [{ "skills/a/SKILL.md": skillMd("a") }]);
    const deep = `skills/a/${Array.from({ length: 40 }, () => "d".repeat(99)).join("/")}/${"f".repeat(50)}`;
    const content = path.join(tree.dir, "deep-content.md");
    await writeFile(content, "deep\n");
    const blob = await git(dir, "hash-object", "-w", content);
    await git(dir, "update-index", "--add", "--cacheinfo", `100644,${blob},${deep}`);
    await git(dir, "commit", "--quiet", "-m", "a path near PATH_MAX");
    const ref = await git(dir, "rev-parse", "HEAD");
    const site = await makeSite(tree.dir, [{ name: "deep", repo: repo.url, ref, path: "skills" }]);

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `deep: skipped ${deep}: cannot be read: its path is longer than the system allows (ENAMETOOLONG)`,
    );
    expect(await readFile(path.join(site, "skills/deep/a/SKILL.md"), "utf8")).toBe(skillMd("a"));
  });
});

describe("fetch-skills: what a remote says", () => {
  // Regression: taking credentials out of git's error read a run of scheme characters (`a-a-a-…`) again
  // from each of its positions: a megabyte of a remote's words kept the fetcher busy for some 20 minutes.
  it("takes the credentials out of a megabyte of a remote's words, as out of a line", async () => {
    const errors = builtModule("scripts/fetch-skills/errors.ts");
    const script = `import { SourceError } from ${JSON.stringify(errors)};
      const said = "remote: " + "a-".repeat(512 * 1024) + " ssh://git:hunter2@host/x https://deploy:ghp_SECRET@host/y";
      const { reason } = new SourceError("solo", "cannot fetch: " + said);
      console.log(JSON.stringify({ length: reason.length, tail: reason.slice(-40) }));`;
    const stopped = new AbortController();
    onTestFinished(() => stopped.abort());
    const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "--eval", script], {
      cwd: tree.dir,
      signal: stopped.signal,
    });
    expect(JSON.parse(stdout)).toEqual({
      length: "cannot fetch: remote: ".length + 1024 * 1024 + " ssh://git@host/x https://host/y".length,
      tail: "a-a-a-a- ssh://git@host/x https://host/y",
    });
  });
});

describe("fetch-skills: what a stopped run leaves behind", () => {
  it("removes the work folders of runs that were killed, and keeps those of runs still going", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "plain"), [{ "a/SKILL.md": skillMd("a") }]);
    const site = await makeSite(tree.dir, [{ name: "p", repo: repo.url, ref: repo.commits[0] ?? "" }]);
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

  // A run killed outright stays a zombie until its parent waits for it (one that never does: a
  // container's shell that exec'd into another program). Its id answers a signal, so its work folder was
  // kept as a live run's until then.
  it("removes the work folder of a run that ended, its parent not having waited for it", async () => {
    const repo = await makeUpstream(path.join(tree.dir, "zombie"), [{ "a/SKILL.md": skillMd("a") }]);
    const site = await makeSite(tree.dir, [{ name: "p", repo: repo.url, ref: repo.commits[0] ?? "" }]);
    // The background sleep ends after its shell became a sleep that never waits for it.
    const parent = spawn("sh", ["-c", "sleep 0.2 & echo $!; exec sleep 60"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    onTestFinished(() => {
      parent.kill();
    });
    const [line] = (await once(parent.stdout, "data")) as [Buffer];
    const pid = Number(line.toString().trim());
    const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    while (state() !== "Z") await sleep(20);
    const ended = path.join(site, ".skills-fetch-Zombie");
    await mkdir(path.join(ended, "out"), { recursive: true });
    await writeFile(path.join(ended, "owner.json"), JSON.stringify({ pid, host: hostname() }));

    const result = await runFetcher([], site);

    expect(result.code, result.stderr).toBe(0);
    expect((await readdir(site)).sort()).toEqual(["skills", "skills.toml"]);
    expect(result.stderr).toContain(`removed ${ended}, left by a run that was stopped`);
  });
});

describe("fetch-skills: all or nothing", () => {
  // Issue 26, item 5: the error for one unreachable source did not say how to fetch the others.
  it("says how to fetch the other sources when one cannot be fetched", async () => {
    const one = await makeUpstream(path.join(tree.dir, "one"), [{ "a/SKILL.md": skillMd("a") }]);
    const site = await makeSite(tree.dir, [
      { name: "one", repo: one.url, ref: one.commits[0] ?? "" },
      { name: "gone", repo: `file://${tree.dir}/nowhere`, ref: "0123456789abcdef0123456789abcdef01234567" },
      { name: "two", repo: one.url, ref: one.commits[0] ?? "" },
    ]);

    const all = await runFetcher(["--cache", "cache"], site);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain("fetch-skills: nothing written");
    expect(all.stderr).toContain(
      'fetch-skills: to fetch the other sources and leave "gone" as it is: npm run fetch-skills -- --cache cache --source one --source two',
    );

    const chosen = await runFetcher(["--source", "gone", "--cache", "my cache", "--source=one"], site);
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toContain(
      "to fetch the other sources and leave \"gone\" as it is: npm run fetch-skills -- --cache 'my cache' --source one\n",
    );
    // `$'…'` is no quoting to dash, Debian's sh: pasted there, the command named another folder, unsaid.
    const hidden = await runFetcher(["--cache", "my\u202Ecache"], site);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain(
      `to fetch the other sources and leave "gone" as it is, in bash, zsh or a POSIX.1-2024 sh (for its $'…' quoting): npm run fetch-skills -- --cache $'my\\xe2\\x80\\xaecache' --source one --source two\n`,
    );
    const alone = await runFetcher(["--source", "gone"], site);
    expect(alone.code).toBe(1);
    expect(alone.stderr).not.toContain("to fetch the other sources");
  });
});
