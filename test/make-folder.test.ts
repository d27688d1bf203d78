import { closeSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MakeFolderError, makeFolder } from "../src/shared/index.js";
import { ROOT } from "./helpers/process.js";

const linux = process.platform === "linux";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "make-folder-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("makeFolder", () => {
  it("makes the missing folders and returns the first it made, as mkdir -p does", async () => {
    const folder = path.join(dir, "a", "b", "c");
    expect(await makeFolder(folder)).toBe(path.join(dir, "a"));
    expect((await stat(folder)).isDirectory()).toBe(true);
    expect(await makeFolder(folder)).toBeUndefined();
    await symlink(path.join(dir, "a"), path.join(dir, "link"));
    expect(await makeFolder(path.join(dir, "link"))).toBeUndefined();
  });

  // Node's words were EEXIST ("file already exists") or ENOTDIR, naming neither the file nor what was needed:
  // `fetch-skills --out /dev/null/x` answered "a file is already there (EEXIST); remove it".
  it("fails on a file where a folder is needed, naming it and what it is", async () => {
    const file = path.join(dir, "file");
    await writeFile(file, "");
    const said = `${file} is a file where the path needs a folder`;
    await expect(makeFolder(file)).rejects.toMatchObject({ code: "ENOTDIR", message: said });
    await expect(makeFolder(path.join(file, "x", "y"))).rejects.toMatchObject({
      code: "ENOTDIR",
      message: said,
    });
    if (linux) {
      await expect(makeFolder("/dev/null/x")).rejects.toThrow(
        "/dev/null is a device where the path needs a folder",
      );
    }
  });

  it("names a dangling symbolic link on the way and where it leads", async () => {
    await symlink(path.join(dir, "gone"), path.join(dir, "link"));
    await expect(makeFolder(path.join(dir, "link", "x"))).rejects.toThrow(
      `${path.join(dir, "link")} is a symbolic link to ${path.join(dir, "gone")}, which does not exist`,
    );
  });

  // Regression: a link in a loop read "it is a file, or a file is on its path" (EEXIST), or, below one,
  // Node's "too many symbolic links encountered".
  it("names a loop of symbolic links, at the folder or on its path", async () => {
    await symlink(path.join(dir, "b"), path.join(dir, "a"));
    await symlink(path.join(dir, "a"), path.join(dir, "b"));
    for (const folder of [path.join(dir, "a"), path.join(dir, "a", "x")]) {
      await expect(makeFolder(folder)).rejects.toMatchObject({
        code: "ELOOP",
        message: `${folder} leads round a loop of symbolic links (one leading back to another on the way): make it a folder, or a link to one`,
      });
    }
  });

  // Node's recursive mkdir never settles in either case: each spins a thread of its pool at full CPU.
  it.skipIf(!linux)("fails at once under /proc, saying why", async () => {
    const refused = makeFolder("/proc/skills-mcp-test/a/b");
    await expect(refused).rejects.toBeInstanceOf(MakeFolderError);
    await expect(refused).rejects.toMatchObject({
      code: "ENOENT",
      syscall: "mkdir",
      path: "/proc/skills-mcp-test",
      message:
        "no folder can be made in /proc: mkdir /proc/skills-mcp-test answered ENOENT (no such file or directory) though /proc is a folder: its file system takes none (as /proc), or it was deleted while in use",
    });
  });

  it.skipIf(!linux)("fails at once in a folder deleted while in use", async () => {
    const deleted = path.join(dir, "deleted");
    await mkdir(deleted);
    const fd = openSync(deleted, "r");
    try {
      await rmdir(deleted);
      await expect(makeFolder(`/proc/self/fd/${fd}/x/y`)).rejects.toBeInstanceOf(MakeFolderError);
    } finally {
      closeSync(fd);
    }
  });
});

// Each command that makes a folder a user names (sync's target, fetch-skills' --out and --cache) goes
// through makeFolder; a recursive mkdir added later would bring the endless loop back.
it("no command makes folders with Node's recursive mkdir", async () => {
  const found: string[] = [];
  for (const folder of ["src", "scripts"]) {
    for (const file of await readdir(path.join(ROOT, folder), { recursive: true })) {
      if (!file.endsWith(".ts")) continue;
      const text = await readFile(path.join(ROOT, folder, file), "utf8");
      if (/\bmkdir(Sync)?\([^)]*recursive:\s*true/.test(text)) found.push(`${folder}/${file}`);
    }
  }
  expect(found).toEqual([]);
});
