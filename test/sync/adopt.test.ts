/**
 * A folder sync did not install that holds exactly the server's copy (its lock file lost, or the skills
 * copied by hand) is adopted: recorded as a fresh install would record it, its files left as they are, and
 * updated from then on. One that differs in any way stays skipped, as it was.
 */
import { lstat, mkdir, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/sync/lock.js";
import { NOT_INSTALLED } from "../../src/sync/plan.js";
import { cuttingProxy } from "../helpers/cutting-proxy.js";
import { ERAS } from "../helpers/server.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { readLockIn, readTree, type Served, serveCatalog, sync, tempFolder } from "./helpers.js";

const REVIEW = skillMd("review-code", "Review code changes.", "Follow `shared/checklist.md`.\n");
const CHECKLIST = "# Checklist\n- tests pass\n";
const DEPLOY = skillMd("deploy-app", "Deploy the application.", "Run scripts/deploy.sh.\n");
const DEPLOY_SCRIPT = "#!/bin/sh\necho deploy\n";
const DOCS = skillMd("write-docs", "Write documentation pages.");
/** Cites a pack file from outside its folder: the installed SKILL.md ends in a note saying it is left out. */
const CLIMB = skillMd("climb", "Cites from outside.", "Follow ../shared/checklist.md.\n");
const PLAN = skillMd("plan-release", "Plan a release.");

const CATALOG = {
  "team/review-code/SKILL.md": REVIEW,
  "team/shared/checklist.md": CHECKLIST,
  "team/write-docs/SKILL.md": DOCS,
  "team/climb/SKILL.md": CLIMB,
  "team/plan-release/SKILL.md": PLAN,
  "other/deploy-app/SKILL.md": DEPLOY,
  "other/deploy-app/scripts/deploy.sh": DEPLOY_SCRIPT,
};
const NAMES = ["climb", "deploy-app", "plan-release", "review-code", "write-docs"];

/** Each file below `dir` (hidden ones too) with its inode and modification time: what a rewrite changes. */
async function fileIdentities(dir: string): Promise<Record<string, string>> {
  const identities: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stats = await stat(file);
    identities[path.relative(dir, file)] = `${stats.ino} ${stats.mtimeMs}`;
  }
  return identities;
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let skills: string;
let target: string;
let server: Served;
beforeEach(async () => {
  root = await tempFolder();
  skills = path.join(root.dir, "skills");
  target = path.join(root.dir, "target");
  await writeTree(skills, CATALOG);
  server = await serveCatalog(skills);
});
afterEach(async () => {
  await server.close();
  await root.remove();
});

describe.each(ERAS)("a lost lock file (%s era)", (era) => {
  // Regression: with the lock file lost, every skill sync had installed was skipped as not its own, every
  // run, and never updated again; the user had to move the folders away by hand and sync again.
  it("adopts every skill it had installed, as a fresh install records it, without rewriting a file", async () => {
    await sync(server.url, target, { era });
    const installed = (await readLockIn(target)).sources[0]?.skills;
    const tree = await readTree(target);
    expect(tree["climb/SKILL.md"]).toContain("Files this skill cites that are not in this copy");
    await rm(path.join(target, LOCK_FILE));
    const identities = await fileIdentities(target);

    const check = await sync(server.url, target, { era, mode: "check" });
    expect(check.steps.map((step) => `${step.kind} ${step.name}`)).toEqual(
      NAMES.map((name) => `adopt ${name}`),
    );
    expect(check.counts).toEqual({ added: 0, updated: 0, removed: 0, adopted: 5, skipped: 0, unchanged: 0 });
    expect(check.lockChange).toBe("it would record this server, which it does not yet");

    const report = await sync(server.url, target, { era });

    expect(report.counts).toEqual({ added: 0, updated: 0, removed: 0, adopted: 5, skipped: 0, unchanged: 0 });
    expect(report.lines).toEqual(NAMES.map((name) => `${name}: adopted: it holds exactly the server's copy`));
    // The pack file review-code holds, and the note at the end of climb's SKILL.md, recorded as installed.
    expect((await readLockIn(target)).sources[0]?.skills).toEqual(installed);
    expect(await readTree(target)).toEqual(tree);
    expect(await fileIdentities(target)).toEqual({
      ...identities,
      [LOCK_FILE]: expect.any(String),
    });

    expect((await sync(server.url, target, { era })).counts).toMatchObject({ adopted: 0, unchanged: 5 });
    // Sync's own again: a change on the server is an update.
    await writeFile(path.join(skills, "team/write-docs/SKILL.md"), `${DOCS}More.\n`);
    await server.close();
    server = await serveCatalog(skills, server.port);
    const updated = await sync(server.url, target, { era });
    expect(updated.counts).toMatchObject({ updated: 1, unchanged: 4, skipped: 0 });
    expect((await readTree(target))["write-docs/SKILL.md"]).toBe(`${DOCS}More.\n`);
  });
});

describe("adopting", () => {
  it("leaves a folder that differs from the server's copy in any way skipped, as it was", async () => {
    await sync(server.url, target);
    await rm(path.join(target, LOCK_FILE));
    // Edited after what the server serves: SKILL.md still starts with the served bytes.
    await writeFile(path.join(target, "write-docs/SKILL.md"), `${DOCS}My note.\n`);
    // The pack file it cites gone: a fresh install would copy it.
    await rm(path.join(target, "review-code/shared/checklist.md"));
    await writeFile(path.join(target, "plan-release/notes.md"), "mine\n");
    await rm(path.join(target, "deploy-app/scripts/deploy.sh"));
    await symlink(
      path.join(target, "deploy-app/SKILL.md"),
      path.join(target, "deploy-app/scripts/deploy.sh"),
    );
    // A file manager's files are no change.
    await writeFile(path.join(target, "climb/.DS_Store"), "finder");
    const tree = await readTree(target, true);

    const check = await sync(server.url, target, { mode: "check" });
    const plan = check.steps.map((step) =>
      step.kind === "skip" ? `skip ${step.name}: ${step.reason}` : `${step.kind} ${step.name}`,
    );
    expect(plan).toEqual([
      "adopt climb",
      `skip deploy-app: ${NOT_INSTALLED}`,
      `skip plan-release: ${NOT_INSTALLED}`,
      `skip review-code: ${NOT_INSTALLED}`,
      `skip write-docs: ${NOT_INSTALLED}`,
    ]);

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ adopted: 1, skipped: 4 });
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(["climb"]);
    const { [LOCK_FILE]: _, ...after } = await readTree(target, true);
    expect(after).toEqual(tree);
    expect((await lstat(path.join(target, "deploy-app/scripts/deploy.sh"))).isSymbolicLink()).toBe(true);

    // Its edit undone, the folder is the server's copy again: a lock change alone, adopting it.
    await writeFile(path.join(target, "write-docs/SKILL.md"), DOCS);
    const undone = await sync(server.url, target, { mode: "check" });
    expect(undone.steps.find((step) => step.name === "write-docs")?.kind).toBe("adopt");
    expect(undone.lockChange).toBe("it would record write-docs as installed from this server");
  });

  // Regression: a folder in the place of the pack file a skill cites was skipped with the line every other
  // difference gets, naming no cause.
  it("says which file of the server's copy it cannot read when a folder is in its place", async () => {
    await sync(server.url, target);
    await rm(path.join(target, LOCK_FILE));
    await rm(path.join(target, "review-code/shared/checklist.md"));
    await mkdir(path.join(target, "review-code/shared/checklist.md"));

    const report = await sync(server.url, target);

    expect(report.lines).toContain(
      "review-code: skipped: a folder or file of that name that sync did not install is there, and sync " +
        "cannot read review-code/shared/checklist.md in it: it is a folder, where the server's copy has a " +
        "file; left alone: move review-code away to get the server's copy",
    );
    expect(report.counts).toMatchObject({ adopted: 4, skipped: 1 });
  });

  // Regression: a sync whose read of a cited file went unanswered said to move the folder away to get the
  // server's copy, though the folder may well be that copy; a check says it cannot tell.
  it("says it cannot tell, and to try again, when the server does not answer for a file the skill cites", async () => {
    await sync(server.url, target);
    await rm(path.join(target, LOCK_FILE));
    let failing = false;
    const front = await cuttingProxy(
      new URL(server.url),
      (body) => failing && body.includes("skill://team/shared/checklist.md"),
    );
    try {
      failing = true;
      const report = await sync(front.url, target);

      const line = report.lines.find((text) => text.startsWith("review-code: skipped: ")) ?? "";
      expect(line).toMatch(
        /^review-code: skipped: a folder or file of that name that sync did not install is there: left alone; sync cannot tell whether review-code holds the server's copy \(which it would adopt\): reading skill:\/\/team\/shared\/checklist\.md, a file it cites, failed: .+; try again when the server answers$/,
      );
      expect(line).not.toContain("move it away");
      // climb cites the checklist too.
      expect(report.counts).toMatchObject({ adopted: 3, skipped: 2 });
      failing = false;
      expect((await sync(front.url, target)).counts).toMatchObject({ adopted: 2, skipped: 0 });
    } finally {
      await front.close();
    }
  });

  it("adopts the skills a user copied by hand before any sync, not a folder spelled otherwise or a symlink", async () => {
    const fresh = path.join(root.dir, "fresh");
    await sync(server.url, fresh);
    // The server's copy, elsewhere, linked to by the skill's name.
    await writeTree(root.dir, { "elsewhere/plan-release/SKILL.md": PLAN });
    await mkdir(target);
    await symlink(path.join(root.dir, "elsewhere/plan-release"), path.join(target, "plan-release"));
    await writeTree(target, {
      "review-code/SKILL.md": REVIEW,
      "review-code/shared/checklist.md": CHECKLIST,
      "deploy-app/SKILL.md": DEPLOY,
      "deploy-app/scripts/deploy.sh": DEPLOY_SCRIPT,
      // The server's copy, in a folder a case-insensitive system takes for write-docs.
      "Write-Docs/SKILL.md": DOCS,
    });

    const report = await sync(server.url, target);

    expect(report.steps.map((step) => `${step.kind} ${step.name}`)).toEqual([
      "add climb",
      "adopt deploy-app",
      "skip plan-release",
      "adopt review-code",
      "skip write-docs",
    ]);
    expect(report.counts).toMatchObject({ added: 1, adopted: 2, skipped: 2 });
    const recorded = (await readLockIn(target)).sources[0]?.skills ?? {};
    const {
      "write-docs": _,
      "plan-release": __,
      ...freshInstall
    } = (await readLockIn(fresh)).sources[0]?.skills ?? {};
    expect(recorded).toEqual(freshInstall);
    expect((await readTree(target))["Write-Docs/SKILL.md"]).toBe(DOCS);
  });

  it("never adopts a skill another server URL installed there", async () => {
    await sync(server.url, target);
    const other = server.url.replace("127.0.0.1", "localhost");

    const report = await sync(other, target, { mode: "check" });

    expect(report.steps.map((step) => step.kind)).toEqual(NAMES.map(() => "skip"));
    expect(report.steps[0]?.kind === "skip" ? report.steps[0].reason : "").toMatch(
      /^sync installed it here from another server URL, http:\/\/127\.0\.0\.1:/,
    );
  });

  it("does not adopt a copy the audit would refuse to install, unless --allow-unsafe", async () => {
    const unsafe = skillMd("hidden", "Looks harmless.", "Run it \u202Enow.\n");
    await writeTree(skills, { "team/hidden/SKILL.md": unsafe });
    await server.close();
    server = await serveCatalog(skills, server.port, { UNSAFE_SKILLS: "serve" });
    await writeTree(target, { "hidden/SKILL.md": unsafe });

    const refused = await sync(server.url, target, { mode: "check" });
    expect(refused.steps.find((step) => step.name === "hidden")).toMatchObject({
      kind: "skip",
      reason: NOT_INSTALLED,
    });

    const allowed = await sync(server.url, target, { allowUnsafe: true });
    expect(allowed.steps.find((step) => step.name === "hidden")?.kind).toBe("adopt");
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toContain("hidden");
  });
});
