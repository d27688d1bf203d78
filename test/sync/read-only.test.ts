/**
 * A skill folder sync installed that holds a folder it may not write to (made read-only here, or, on
 * Windows, a file another program holds open): the old copy cannot be deleted once the new one is in.
 * The sync runs as its own process, as `nobody` when the tests run as root (root may write anywhere).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, chown, mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/sync/lock.js";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { keptFolderName, VERIFIED_DIR } from "../../src/sync/verified.js";
import { type Exited, MAIN, type User } from "../helpers/process.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { readLockIn, readTree, type Served, serveCatalog, tempFolder } from "./helpers.js";

const USER: User | undefined = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
const SCRIPT = "console.log('reshape');\n";
const CLEAN_CSV = skillMd("clean-csv", "Clean CSV files.");

/** `sync <url> --to <folder>` as a process, run by `sh -c <shell>` ("$@": the command) when given. */
function runSync(
  url: string,
  folder: string,
  nodeArgs: readonly string[] = [],
  shell?: string,
): Promise<Exited> {
  const command = [process.execPath, ...nodeArgs, ...MAIN, "sync", url, "--to", folder];
  const [file = "", ...args] = shell === undefined ? command : ["sh", "-c", shell, "sh", ...command];
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: { ...process.env, NODE_OPTIONS: "" }, timeout: 60_000, ...USER },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let skills: string;
let target: string;
let server: Served;
beforeEach(async () => {
  root = await tempFolder();
  skills = path.join(root.dir, "skills");
  target = path.join(root.dir, "target");
  await writeTree(skills, {
    "data/reshape-json/SKILL.md": skillMd("reshape-json", "Reshape JSON.", "Run scripts/reshape.js.\n"),
    "data/reshape-json/scripts/reshape.js": SCRIPT,
    "data/clean-csv/SKILL.md": CLEAN_CSV,
  });
  server = await serveCatalog(skills);
  await mkdir(target);
  if (USER !== undefined) {
    // mkdtemp made the folder 0700: the user must be able to enter it, and own the target.
    await chmod(root.dir, 0o755);
    await chown(target, USER.uid, USER.gid);
  }
});
afterEach(async () => {
  await server.close();
  // Writable again, so that the folder can be removed when the tests do not run as root.
  await chmod(target, 0o755);
  for (const entry of await readdir(target, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) await chmod(path.join(entry.parentPath, entry.name), 0o755);
  }
  await root.remove();
});

describe("a skill whose old copy cannot be deleted", () => {
  // Regression: the new copy was put in place, then the failure to delete the old one was reported as
  // "cannot be put in place": the lock kept the old copy, so every later run called the skill "changed
  // here" and never updated it again; and the staging folder left behind failed every later run (exit 2).
  it("is updated all the same, and the next runs go on", { timeout: 120_000 }, async () => {
    expect((await runSync(server.url, target)).code).toBe(0);
    await chmod(path.join(target, "reshape-json/scripts"), 0o555);
    const manifest = skillMd("reshape-json", "Reshape JSON.", "Run scripts/reshape.js, with --pretty.\n");
    await writeTree(skills, { "data/reshape-json/SKILL.md": manifest });
    await server.close();
    server = await serveCatalog(skills, server.port);

    const updated = await runSync(server.url, target);

    expect(updated.stderr).toContain("1 updated, 0 removed, 0 skipped, 1 unchanged");
    expect(updated.stderr).toMatch(new RegExp(`cannot remove .*${STAGING_DIR}`));
    expect(updated.code).toBe(0);
    expect(await readTree(target)).toEqual({
      "clean-csv/SKILL.md": CLEAN_CSV,
      "reshape-json/SKILL.md": manifest,
      "reshape-json/scripts/reshape.js": SCRIPT,
    });
    const sha = `sha256:${createHash("sha256").update(manifest).digest("hex")}`;
    expect((await readLockIn(target)).sources[0]?.skills["reshape-json"]?.files["SKILL.md"]).toBe(sha);

    const again = await runSync(server.url, target);
    expect(again.stderr).toContain("0 skipped, 2 unchanged");
    expect(again.code).toBe(0);
  });
});

describe("a file of an installed skill that sync may not read", () => {
  // Regression: reading it failed the whole run ("cannot sync into <folder>: EACCES", exit 2): no skill
  // was added or updated, whatever the others needed.
  it("has its skill left alone as changed here, and the others synced", { timeout: 120_000 }, async () => {
    expect((await runSync(server.url, target)).code).toBe(0);
    await chmod(path.join(target, "reshape-json/SKILL.md"), 0o000);
    await rm(path.join(target, "clean-csv"), { recursive: true });

    const report = await runSync(server.url, target);

    expect(report.stderr).toMatch(/reshape-json: skipped: changed here since sync installed it \(.*EACCES/);
    expect(report.stderr).toContain("1 added, 0 updated, 0 removed, 1 skipped");
    expect(report.code).toBe(1);
    await chmod(path.join(target, "reshape-json/SKILL.md"), 0o644);
    expect((await readTree(target))["clean-csv/SKILL.md"]).toBe(CLEAN_CSV);
  });
});

describe("a pack file a skill cites that sync may not read, in a folder it did not install", () => {
  // Regression: with the lock file lost, the folder holding the server's copy was skipped saying "move it
  // away to get the server's copy", though it was that copy: what was wrong was one unreadable file.
  it("is named with why, and the folder is adopted once sync may read it", { timeout: 120_000 }, async () => {
    const review = skillMd("review-code", "Review code changes.", "Follow `shared/checklist.md`.\n");
    await writeTree(skills, {
      "data/review-code/SKILL.md": review,
      "data/shared/checklist.md": "- tests pass\n",
    });
    await server.close();
    server = await serveCatalog(skills, server.port);
    expect((await runSync(server.url, target)).code).toBe(0);
    await rm(path.join(target, LOCK_FILE));
    const cited = path.join(target, "review-code/shared/checklist.md");
    await chmod(cited, 0o000);

    const report = await runSync(server.url, target);

    expect(report.stderr).toContain(
      "review-code: skipped: a folder or file of that name that sync did not install is there, and sync " +
        "cannot read review-code/shared/checklist.md in it: permission denied (EACCES); left alone: let the " +
        "user sync runs as read it (sync then adopts the folder if it holds the server's copy), or move " +
        "review-code away to get the server's copy\n",
    );
    expect(report.stderr).toContain("0 added, 0 updated, 0 removed, 1 skipped, 0 unchanged, 2 adopted");
    await chmod(cited, 0o644);
    const readable = await runSync(server.url, target);
    expect(readable.stderr).toContain("review-code: adopted: it holds exactly the server's copy\n");
    expect(readable.code).toBe(0);
  });
});

describe("a target folder sync may not write to", () => {
  // Regression: a run with nothing to change exited 2 ("cannot sync into <folder>: EACCES"), as it took
  // the run lock and opened its staging folder first, while --check on the same folder worked.
  it("is synced when nothing changed, writing nothing; with work to do, the run says why it cannot", {
    timeout: 120_000,
  }, async () => {
    expect((await runSync(server.url, target)).code).toBe(0);
    const before = (await readdir(target)).sort();
    await chmod(target, 0o555);

    const unchanged = await runSync(server.url, target);

    expect(unchanged.stderr).toContain("0 added, 0 updated, 0 removed, 0 skipped, 2 unchanged");
    expect(unchanged.code).toBe(0);
    expect((await readdir(target)).sort()).toEqual(before);

    await writeTree(skills, { "data/plan-release/SKILL.md": skillMd("plan-release", "Plan a release.") });
    await server.close();
    server = await serveCatalog(skills, server.port);
    const added = await runSync(server.url, target);
    expect(added.stderr).toContain(
      `skills-mcp sync: cannot sync into ${target}: it cannot be written to (EACCES: permission denied), and a sync has 1 to add, 0 to update, 0 to remove there: run sync as a user who may write to it, or give another folder with --to\n`,
    );
    expect(added.code).toBe(2);
    expect((await readdir(target)).sort()).toEqual(before);

    // A folder to make in one it may not write to: the message names where.
    const below = path.join(target, "below");
    const made = await runSync(server.url, below);
    expect(made.stderr).toContain(
      `skills-mcp sync: cannot sync into ${below}: it cannot be made (EACCES: permission denied, mkdir '${below}'), and a sync has 3 to add, 0 to update, 0 to remove there:`,
    );
    expect(made.code).toBe(2);
  });
});

// A read-only mount (a container's volume given `:ro`) refuses every user: the advice to run sync as
// one who may write there sent the user after a user that does not exist.
describe("a target folder on a read-only file system", () => {
  it("with work to do, says to mount it read-write", { timeout: 60_000 }, async () => {
    expect((await runSync(server.url, target)).code).toBe(0);
    await writeTree(skills, { "data/plan-release/SKILL.md": skillMd("plan-release", "Plan a release.") });
    await server.close();
    server = await serveCatalog(skills, server.port);
    // Mounting needs privileges a test does not have: the system's answer is given instead.
    const readOnly = [
      'import fs from "node:fs";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const { writeFile } = fs.promises;",
      "const refused = (file) => Object.assign(new Error(\"EROFS: read-only file system, open '\" + file + \"'\"), { code: 'EROFS', syscall: 'open', path: file });",
      `fs.promises.writeFile = (file, ...rest) => String(file).startsWith(${JSON.stringify(target)}) ? Promise.reject(refused(file)) : writeFile(file, ...rest);`,
      "syncBuiltinESMExports();",
    ].join("\n");
    const added = await runSync(server.url, target, [
      "--import",
      `data:text/javascript,${encodeURIComponent(readOnly)}`,
    ]);
    expect(added.stderr).toContain(
      `skills-mcp sync: cannot sync into ${target}: it cannot be written to (EROFS: read-only file system), and a sync has 1 to add, 0 to update, 0 to remove there: its file system is mounted read-only: mount it read-write, or give another folder with --to\n`,
    );
    expect(added.code).toBe(2);
  });
});

describe("files a stopped run kept that sync may not remove", () => {
  it("stay where they are, and the run installs the skills all the same", { timeout: 120_000 }, async () => {
    const verified = path.join(target, STAGING_DIR, VERIFIED_DIR);
    const kept = path.join(verified, keptFolderName(server.url));
    // A file no skill lists now, in a folder made read-only since.
    await writeTree(kept, { [createHash("sha256").update("gone").digest("hex")]: "gone" });
    if (USER !== undefined) {
      for (const dir of [path.join(target, STAGING_DIR), verified, kept]) {
        await chown(dir, USER.uid, USER.gid);
      }
    }
    await chmod(kept, 0o555);

    const report = await runSync(server.url, target);

    expect(report.stderr).toContain("2 added, 0 updated, 0 removed, 0 skipped");
    expect(report.stderr).toMatch(new RegExp(`cannot remove .*${STAGING_DIR}`));
    expect(report.code).toBe(0);
    expect(Object.keys(await readTree(target)).sort()).toEqual([
      "clean-csv/SKILL.md",
      "reshape-json/SKILL.md",
      "reshape-json/scripts/reshape.js",
    ]);
  });
});

describe("leftovers of past runs, one of which sync may not remove", () => {
  // Regression: clearing stopped at the first it could not remove, and every leftover after it stayed.
  // The one made read-only is the first the folder lists (the order is the file system's, as sync reads
  // it), so that a clearing that stops there leaves all the others, whatever that order is.
  it("are all removed but that one, which the run names", { timeout: 120_000 }, async () => {
    const staging = path.join(target, STAGING_DIR);
    const leftovers = Array.from({ length: 8 }, (_, index) => `run-${index}`);
    for (const name of leftovers) await writeTree(path.join(staging, name), { "a/file": "left" });
    if (USER !== undefined) {
      for (const entry of await readdir(staging, { recursive: true, withFileTypes: true })) {
        await chown(path.join(entry.parentPath, entry.name), USER.uid, USER.gid);
      }
      await chown(staging, USER.uid, USER.gid);
    }
    const [first = ""] = await readdir(staging);
    await chmod(path.join(staging, first, "a"), 0o555);

    const report = await runSync(server.url, target);

    expect(report.stderr).toContain("2 added, 0 updated, 0 removed, 0 skipped");
    expect(report.stderr).toMatch(new RegExp(`cannot remove .*${STAGING_DIR}`));
    expect(report.code).toBe(0);
    // The run's own staging folder goes too, listed after that one or before.
    expect(await readdir(staging)).toEqual([first]);
  });
});

describe("a folder whose disk has no room left", () => {
  // It said `cannot sync into <folder>: EFBIG: file too large, write`: no file named, nothing on what the
  // folder was left as, nor what to do. The disk "fills" at the file size limit: Node ignores SIGXFSZ, so
  // a write past `ulimit -f` (1 block: 512 or 1,024 bytes) fails with EFBIG, as one to a full disk does
  // with ENOSPC. The skills' files fit; the lock file recording both does not.
  it("fails saying what it left and what to do, and the next run finishes", { timeout: 60_000 }, async () => {
    const full = await runSync(server.url, target, [], 'ulimit -f 1; exec "$@"');

    expect(full.stderr).toContain(
      `skills-mcp sync: cannot sync into ${target}: a file grew past the size this process may write (EFBIG); each skill there is as it was or as the server serves it: raise the limit (ulimit -f), then run sync again\n`,
    );
    expect(full.code).toBe(2);
    expect((await readdir(target)).filter((name) => !name.startsWith("."))).toEqual([]);

    const next = await runSync(server.url, target);
    expect(next.stderr).toContain("2 added, 0 updated, 0 removed, 0 skipped");
    expect(await readdir(target)).toEqual([".skills-mcp-sync.json", "clean-csv", "reshape-json"]);
  });
});
