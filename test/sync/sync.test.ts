/**
 * `skills-mcp sync` against the real server, in this process and over HTTP, in both protocol eras: what
 * lands in the target folder, what the lock records, and what a second run changes.
 */
import { createHash } from "node:crypto";
import { access, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { type SkillSource, SkillsExtension, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { LOCK_FILE } from "../../src/sync/lock.js";
import { SyncError } from "../../src/sync/options.js";
import { isOutOfDate, type Step } from "../../src/sync/plan.js";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { keptFolderName, VERIFIED_DIR } from "../../src/sync/verified.js";
import { cuttingProxy, type ProxyAnswer } from "../helpers/cutting-proxy.js";
import { ERAS } from "../helpers/server.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import {
  readLockIn,
  readTree,
  recordedProgress,
  type Served,
  serveCatalog,
  serveMcp,
  sync,
  tempFolder,
} from "./helpers.js";

const REVIEW = skillMd(
  "review-code",
  "Review code changes.",
  "# Review\nFollow `shared/checklist.md` and references/style.md.\n",
);
const STYLE = "# Style\nShort functions.\n";
const CHECKLIST = "# Checklist\n- tests pass\n";
const DOCS = skillMd("write-docs", "Write documentation pages.");
const DEPLOY = skillMd("deploy-app", "Deploy the application.", "Run scripts/deploy.sh.\n");
const DEPLOY_SCRIPT = "#!/bin/sh\necho deploy\n";

const CATALOG = {
  "team/review-code/SKILL.md": REVIEW,
  "team/review-code/references/style.md": STYLE,
  "team/shared/checklist.md": CHECKLIST,
  "team/write-docs/SKILL.md": DOCS,
  "other/deploy-app/SKILL.md": DEPLOY,
  "other/deploy-app/scripts/deploy.sh": DEPLOY_SCRIPT,
};

/** What a full sync of CATALOG writes: each skill, and the pack file review-code cites inside it. */
const INSTALLED = {
  "deploy-app/SKILL.md": DEPLOY,
  "deploy-app/scripts/deploy.sh": DEPLOY_SCRIPT,
  "review-code/SKILL.md": REVIEW,
  "review-code/references/style.md": STYLE,
  "review-code/shared/checklist.md": CHECKLIST,
  "write-docs/SKILL.md": DOCS,
};

function digest(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** A temporary folder for one test, holding `skills` (a catalog to serve) and `target`, removed when it ends. */
async function workspace(): Promise<{
  readonly root: string;
  readonly skills: string;
  readonly target: string;
}> {
  const root = await tempFolder();
  onTestFinished(() => root.remove());
  return { root: root.dir, skills: path.join(root.dir, "skills"), target: path.join(root.dir, "target") };
}

/**
 * The real server on the skills folder `skills` (see serveCatalog), closed when the test ends; `restart`
 * serves the folder again at the same URL, as a restarted deployment would, to see a change.
 */
async function served(
  skills: string,
  env: Record<string, string> = {},
): Promise<Served & { restart(): Promise<void> }> {
  let server = await serveCatalog(skills, 0, env);
  onTestFinished(() => server.close());
  return {
    url: server.url,
    port: server.port,
    close: () => server.close(),
    restart: async () => {
      await server.close();
      server = await serveCatalog(skills, server.port, env);
    },
  };
}

describe.each(ERAS)("sync from the real server (%s era)", (era) => {
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

  /** Serves the skills folder again, as a restarted deployment would, at the same URL. */
  async function restart(): Promise<void> {
    await server.close();
    server = await serveCatalog(skills, server.port);
  }

  it("installs every skill on the first run, with the pack file its text cites, and records each file's digest", async () => {
    const report = await sync(server.url, target, { era });

    expect(report.counts).toEqual({ added: 3, updated: 0, removed: 0, adopted: 0, skipped: 0, unchanged: 0 });
    expect(await readTree(target)).toEqual(INSTALLED);
    const lock = await readLockIn(target);
    expect(lock.sources).toHaveLength(1);
    const [source] = lock.sources;
    expect(source?.server).toBe(server.url);
    expect(source?.skills["review-code"]).toMatchObject({
      uri: "skill://team/review-code/SKILL.md",
      files: {
        "SKILL.md": digest(REVIEW),
        "references/style.md": digest(STYLE),
        "shared/checklist.md": digest(CHECKLIST),
      },
      packFiles: {
        "shared/checklist.md": { uri: "skill://team/shared/checklist.md", digest: digest(CHECKLIST) },
      },
    });
    // Nothing of the run is left beside the skills but the lock.
    await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
  });

  // Regression: a skill whose folder the user had deleted, then dropped by the server, was counted in
  // "1 removed" with no line naming it.
  it("names a skill it drops from the lock whose folder was already gone", async () => {
    await sync(server.url, target, { era });
    await rm(path.join(target, "deploy-app"), { recursive: true });
    await rm(path.join(skills, "other"), { recursive: true });
    await restart();

    const report = await sync(server.url, target, { era });

    expect(report.counts).toMatchObject({ removed: 1 });
    expect(report.lines).toContain("deploy-app: removed (no longer served; its folder was already gone)");
    expect(report.lines.filter((line) => line.includes("removed"))).toHaveLength(1);
  });

  it("updates what changed, adds what is new and removes what the server no longer serves", async () => {
    await sync(server.url, target, { era });
    const docs = skillMd("write-docs", "Write documentation pages.", "# Docs\nNow with a template.\n");
    const checklist = `${CHECKLIST}- docs updated\n`;
    await writeTree(skills, {
      "team/write-docs/SKILL.md": docs,
      "team/shared/checklist.md": checklist,
      "team/plan-release/SKILL.md": skillMd("plan-release", "Plan a release."),
    });
    await rm(path.join(skills, "other"), { recursive: true });
    await restart();

    const report = await sync(server.url, target, { era });

    expect(report.counts).toEqual({ added: 1, updated: 2, removed: 1, adopted: 0, skipped: 0, unchanged: 0 });
    expect(await readTree(target)).toEqual({
      "plan-release/SKILL.md": skillMd("plan-release", "Plan a release."),
      "review-code/SKILL.md": REVIEW,
      "review-code/references/style.md": STYLE,
      "review-code/shared/checklist.md": checklist,
      "write-docs/SKILL.md": docs,
    });
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {}).sort()).toEqual([
      "plan-release",
      "review-code",
      "write-docs",
    ]);
    // A third run has nothing to do.
    expect((await sync(server.url, target, { era })).counts).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
      adopted: 0,
      skipped: 0,
      unchanged: 3,
    });
  });

  // Regression: a local folder was compared by its lowercase only, and `write-doc\u017f` (a long s) is
  // `write-docs` on macOS and Windows: the skill was put in place where the local folder is there.
  it("takes a local folder a case-insensitive system reads as a served skill's for that skill's", async () => {
    const local = { "write-doc\u017f/SKILL.md": "my local notes" };
    await writeTree(target, local);

    const report = await sync(server.url, target, { era });

    expect(report.lines).toContainEqual(expect.stringMatching(/^write-docs: skipped: .*did not install/));
    const tree = await readTree(target);
    expect(tree).toMatchObject(local);
    expect(Object.keys(tree).filter((file) => file.startsWith("write-docs/"))).toEqual([]);
  });

  it("leaves a local skill alone, and reports a served skill whose name a local folder holds", async () => {
    const local = {
      "my-own/SKILL.md": skillMd("my-own", "Mine."),
      "review-code/SKILL.md": "my local review notes",
    };
    await writeTree(target, local);

    const report = await sync(server.url, target, { era });

    expect(report.counts).toMatchObject({ added: 2, skipped: 1 });
    expect(report.lines).toContainEqual(expect.stringMatching(/^review-code: skipped: .*did not install/));
    const tree = await readTree(target);
    expect(tree).toMatchObject(local);
    expect(Object.keys(tree).filter((file) => file.startsWith("review-code/"))).toEqual([
      "review-code/SKILL.md",
    ]);
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {}).sort()).toEqual([
      "deploy-app",
      "write-docs",
    ]);

    // Served no more, the skills sync installed go; the local folders stay.
    await rm(path.join(skills, "other"), { recursive: true });
    await restart();
    await sync(server.url, target, { era });
    expect(await readTree(target)).toEqual({ ...local, "write-docs/SKILL.md": DOCS });
  });

  it("installs what the scope selects, and moves with the scope", async () => {
    const other = await sync(server.url, target, { era, headers: { "X-Skill-Pack": "other" } });
    expect(other.counts.added).toBe(1);
    expect(Object.keys(await readTree(target))).toEqual([
      "deploy-app/SKILL.md",
      "deploy-app/scripts/deploy.sh",
    ]);

    const team = await sync(server.url, target, { era, headers: { "X-Skill-Pack": "team" } });

    expect(team.counts).toMatchObject({ added: 2, removed: 1 });
    expect(Object.keys(await readTree(target))).toEqual([
      "review-code/SKILL.md",
      "review-code/references/style.md",
      "review-code/shared/checklist.md",
      "write-docs/SKILL.md",
    ]);
  });

  // In the modern era a refused pack read "cannot connect to …: Version negotiation failed: the server
  // did not offer pinned protocol version 2026-07-28": the SDK's probe dropped the server's HTTP 400.
  it("says the server refused the pack, and which packs are valid, naming no connection failure", async () => {
    const unknown = sync(server.url, target, { era, headers: { "X-Skill-Pack": "nosuch" } });
    await expect(unknown).rejects.toThrow(
      `${server.url} refused the pack asked for "nosuch": Unknown pack or group "nosuch". Valid selectors: other, team.`,
    );
    // A ceiling in the URL (?pack=) that shares nothing with the header's.
    const outside = sync(`${server.url}?pack=team`, target, { era, headers: { "X-Skill-Pack": "other" } });
    await expect(outside).rejects.toThrow(/refused the pack asked for "other": .*\bteam\b/);
    await expect(outside).rejects.not.toThrow(/cannot connect|negotiation/);
    await expect(access(target)).rejects.toThrow();
  });

  // Regression: the header's value was repeated whole, up to the 1000 characters a server takes.
  it("quotes a long pack asked for cut, as other messages quote what the user gave", async () => {
    const long = `${"x".repeat(150)}, other`;
    const refused = sync(server.url, target, { era, headers: { "X-Skill-Pack": long } });
    await expect(refused).rejects.toThrow(`refused the pack asked for "${"x".repeat(100)}…": `);
  });

  it("says what the server answered a URL with no MCP endpoint, and the URL meant", async () => {
    await expect(sync(server.url.replace(/\/mcp$/, "/skills"), target, { era })).rejects.toThrow(
      /^cannot connect to \S+\/skills: .*No route POST \/skills: MCP is served at POST \/mcp/,
    );
    // The server's address alone, as a first sync gives it.
    await expect(sync(server.url.replace(/\/mcp$/, ""), target, { era })).rejects.toThrow(
      `report on the server; give the URL of its MCP endpoint, as ${server.url} for a skills-mcp server`,
    );
  });

  it("selects a group named outside Latin-1, which fetch cannot send as it is", async () => {
    await writeTree(skills, { "other/日本語/brew-tea/SKILL.md": skillMd("brew-tea", "Brew tea.") });
    await restart();

    const report = await sync(server.url, target, { era, headers: { "X-Skill-Pack": "other/日本語" } });

    expect(report.counts.added).toBe(1);
    expect(Object.keys(await readTree(target))).toEqual(["brew-tea/SKILL.md"]);
  });

  it("plans without writing in a dry run or a check, and a check tells an out-of-date folder", async () => {
    const planned = await sync(server.url, target, { era, mode: "dry-run" });
    expect(planned.steps.map((step) => `${step.kind} ${step.name}`)).toEqual([
      "add deploy-app",
      "add review-code",
      "add write-docs",
    ]);
    await expect(access(target)).rejects.toThrow();

    await sync(server.url, target, { era });
    const lock = await readFile(path.join(target, LOCK_FILE), "utf8");
    expect(isOutOfDate((await sync(server.url, target, { era, mode: "check" })).steps)).toBe(false);

    await writeTree(skills, { "team/write-docs/SKILL.md": skillMd("write-docs", "Write better docs.") });
    await restart();
    const check = await sync(server.url, target, { era, mode: "check" });
    expect(
      check.steps.filter((step) => step.kind !== "keep").map((step) => `${step.kind} ${step.name}`),
    ).toEqual(["update write-docs"]);
    expect(isOutOfDate(check.steps)).toBe(true);
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(lock);
    expect((await readTree(target))["write-docs/SKILL.md"]).toBe(DOCS);
  });

  it("writes nothing when nothing changed, so a lock committed with the skills stays as it is", async () => {
    await sync(server.url, target, { era });
    const lock = await readFile(path.join(target, LOCK_FILE), "utf8");

    expect((await sync(server.url, target, { era })).counts.unchanged).toBe(3);
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(lock);

    // A skill installed again after its folder was deleted leaves the lock as it was too.
    await rm(path.join(target, "write-docs"), { recursive: true });
    expect((await sync(server.url, target, { era })).counts.added).toBe(1);
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(lock);
  });

  it("leaves a skill changed here alone, and installs again one whose folder was deleted", async () => {
    await sync(server.url, target, { era });
    await writeFile(path.join(target, "write-docs/SKILL.md"), "edited here");
    await rm(path.join(target, "deploy-app"), { recursive: true });
    await writeTree(skills, { "team/write-docs/SKILL.md": skillMd("write-docs", "Write better docs.") });
    await restart();

    const report = await sync(server.url, target, { era });

    expect(report.counts).toMatchObject({ added: 1, updated: 0, skipped: 1 });
    expect(report.lines).toContainEqual(expect.stringMatching(/^write-docs: skipped: changed here/));
    const tree = await readTree(target);
    expect(tree["write-docs/SKILL.md"]).toBe("edited here");
    expect(tree["deploy-app/SKILL.md"]).toBe(DEPLOY);
  });

  // Finder writes .DS_Store into a folder the user only opened (Explorer: Thumbs.db, desktop.ini): the
  // skill was "changed here", and never updated or removed again, each run exiting 1.
  it("updates and removes a skill whose folder a file manager wrote its files into", async () => {
    await sync(server.url, target, { era });
    await writeFile(path.join(target, "write-docs/.DS_Store"), "\0\0\0\u0001Bud1");
    await writeFile(path.join(target, "deploy-app/scripts/Thumbs.db"), "thumbnails");
    await writeFile(path.join(target, "deploy-app/desktop.ini"), "[.ShellClassInfo]");
    await writeTree(skills, { "team/write-docs/SKILL.md": skillMd("write-docs", "Write better docs.") });
    await rm(path.join(skills, "other/deploy-app"), { recursive: true });
    await restart();

    const report = await sync(server.url, target, { era });

    expect(report.counts).toMatchObject({ updated: 1, removed: 1, skipped: 0 });
    expect((await readTree(target))["write-docs/SKILL.md"]).toBe(skillMd("write-docs", "Write better docs."));
    expect(await readdir(path.join(target, "write-docs"))).toEqual(["SKILL.md"]);
    await expect(access(path.join(target, "deploy-app"))).rejects.toThrow();
  });

  // macOS copying a folder to a volume without extended attributes (FAT, exFAT, an SMB or NFS share)
  // writes `._<name>` beside each file and folder it moves: the skill was "changed here" for good.
  it("updates and removes a skill holding macOS's AppleDouble files, not a user's own file of such a name", async () => {
    await sync(server.url, target, { era });
    const appleDouble = Buffer.from([0, 5, 0x16, 7, 0, 2, 0, 0, ...Array<number>(18).fill(0)]);
    await writeFile(path.join(target, "write-docs/._SKILL.md"), appleDouble);
    await writeFile(path.join(target, "write-docs/._gone.md"), appleDouble);
    await writeFile(path.join(target, "deploy-app/._scripts"), appleDouble);
    await writeFile(path.join(target, "deploy-app/scripts/._deploy.sh"), appleDouble);
    await writeFile(path.join(target, "review-code/._notes.md"), "my own notes\n");
    await writeTree(skills, {
      "team/write-docs/SKILL.md": skillMd("write-docs", "Write better docs."),
      "team/review-code/references/style.md": "# Style\nShorter functions.\n",
    });
    await rm(path.join(skills, "other/deploy-app"), { recursive: true });
    await restart();

    const report = await sync(server.url, target, { era });

    expect(report.counts).toMatchObject({ updated: 1, removed: 1, skipped: 1 });
    expect(report.lines).toContainEqual(expect.stringMatching(/^review-code: skipped: changed here/));
    expect((await readTree(target))["write-docs/SKILL.md"]).toBe(skillMd("write-docs", "Write better docs."));
    expect(await readdir(path.join(target, "write-docs"))).toEqual(["SKILL.md"]);
    await expect(access(path.join(target, "deploy-app"))).rejects.toThrow();
  });
});

describe("pack files a skill cites from outside its folder", () => {
  it("are left out, and the installed SKILL.md says so; the next run has nothing to do", async () => {
    const { skills, target } = await workspace();
    const manifest = skillMd(
      "review-code",
      "Review code changes.",
      "Follow ../shared/checklist.md; see shared/none.md.\n",
    );
    await writeTree(skills, { "team/review-code/SKILL.md": manifest, "team/shared/checklist.md": CHECKLIST });
    const server = await served(skills);
    const report = await sync(server.url, target);

    expect(report.lines).toContainEqual(
      expect.stringMatching(/review-code: .*left out 1 file\(s\) it cites/),
    );
    const installed = (await readTree(target))["review-code/SKILL.md"] ?? "";
    expect(installed.startsWith(manifest)).toBe(true);
    expect(installed.slice(manifest.length)).toBe(
      "\n\n---\n\nInstalled by skills-mcp sync from skill://team/review-code/SKILL.md. Files this skill cites that are not in this copy:\n\n" +
        "- `../shared/checklist.md` (skill://team/shared/checklist.md): outside this skill's folder, where sync writes nothing\n",
    );
    expect((await readLockIn(target)).sources[0]?.skills["review-code"]?.files["SKILL.md"]).toBe(
      digest(installed),
    );
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1, updated: 0 });
  });

  // Copied beside `shared/own.md` on macOS or Windows, it went into the skill's `shared/` folder, under a
  // path the lock did not record: every later run took the skill for one changed here.
  it("are left out where a folder of the skill is spelled otherwise, naming it", async () => {
    const { skills, target } = await workspace();
    const manifest = skillMd("review-code", "Review code changes.", "Follow Shared/checklist.md.\n");
    await writeTree(skills, {
      "team/review-code/SKILL.md": manifest,
      "team/review-code/shared/own.md": "own\n",
      "team/Shared/checklist.md": CHECKLIST,
    });
    const server = await served(skills);
    await sync(server.url, target);
    const installed = (await readTree(target))["review-code/SKILL.md"] ?? "";
    expect(installed).toContain(
      "- `Shared/checklist.md` (skill://team/Shared/checklist.md): a file of the skill is in the way, `shared/own.md`: one name on a case-insensitive system, or a file where a folder must be\n",
    );
    expect(Object.keys(await readTree(target)).sort()).toEqual([
      "review-code/SKILL.md",
      "review-code/shared/own.md",
    ]);
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1, updated: 0 });
  });

  // Regression: a cited file the server did not serve when the skill was installed was never looked up
  // again, so a sync (and a check) called the folder current while the server served more than it held.
  it("copies a cited file the server starts serving after the skill was installed", async () => {
    const { skills, target } = await workspace();
    const manifest = skillMd(
      "review-code",
      "Review code changes.",
      "Follow shared/checklist.md, and ../shared/style.md.\n",
    );
    await writeTree(skills, { "team/review-code/SKILL.md": manifest });
    const server = await served(skills);
    await sync(server.url, target);
    expect(await readTree(target)).toEqual({ "review-code/SKILL.md": manifest });
    await writeTree(skills, { "team/shared/checklist.md": CHECKLIST, "team/shared/style.md": STYLE });
    await server.restart();

    const check = await sync(server.url, target, { mode: "check" });
    expect(check.steps.map((step) => `${step.kind} ${step.name}`)).toEqual(["update review-code"]);
    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ updated: 1 });
    const tree = await readTree(target);
    expect(tree["review-code/shared/checklist.md"]).toBe(CHECKLIST);
    // The one outside the skill's folder cannot be copied: the note now names it.
    expect(tree["review-code/SKILL.md"]).toContain(
      "- `../shared/style.md` (skill://team/shared/style.md): outside this skill's folder",
    );
    expect((await readLockIn(target)).sources[0]?.skills["review-code"]?.packFiles).toEqual({
      "shared/checklist.md": { uri: "skill://team/shared/checklist.md", digest: digest(CHECKLIST) },
    });
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1, updated: 0 });
  });

  // Regression: a run with nothing to change read the files each skill cites one after another, each
  // waiting for the last: as many round trips to the server as lookups, up to 64 a skill.
  it("reads the files a skill cites at once on a run with nothing to change", async () => {
    const { skills, target } = await workspace();
    const cites = ["shared/a.md", "shared/b.md", "shared/c.md", "shared/d.md"];
    const manifest = skillMd("review-code", "Review code changes.", `See ${cites.join(", ")}.\n`);
    await writeTree(skills, {
      "team/review-code/SKILL.md": manifest,
      ...Object.fromEntries(cites.map((cited) => [`team/${cited}`, `# ${cited}\n`])),
    });
    const server = await served(skills);
    let holding = false;
    let waiting = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    // Holds each read of a cited file until all are asked for: only reads made at once wait together.
    // One made alone goes on after a while, lest reads made one after another wait for ever.
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      if (!holding || !body.includes("skill://team/shared/")) return false;
      waiting += 1;
      most = Math.max(most, waiting);
      await new Promise<void>((resolve) => {
        releases.push(resolve);
        if (waiting === cites.length) for (const release of releases) release();
        setTimeout(resolve, 2_000);
      });
      waiting -= 1;
      return false;
    });
    try {
      expect((await sync(front.url, target)).counts).toMatchObject({ added: 1 });
      holding = true;

      const report = await sync(front.url, target);

      expect(report.counts).toMatchObject({ unchanged: 1, updated: 0, skipped: 0 });
      expect(most).toBe(cites.length);
    } finally {
      await front.close();
    }
  });

  // Regression: the skills themselves were checked one after another, so a run with nothing to change
  // still took a round trip or more a skill.
  it("checks the skills at once on a run with nothing to change, 8 reads at most in flight, each file read once", async () => {
    const { skills, target } = await workspace();
    const names = Array.from({ length: 12 }, (_, index) => `skill-${String.fromCharCode(97 + index)}`);
    await writeTree(skills, {
      "team/shared/common.md": "# Common\n",
      ...Object.fromEntries(
        names.flatMap((name) => [
          [
            `team/${name}/SKILL.md`,
            skillMd(name, `Does ${name} things.`, `See shared/common.md, shared/${name}.md.\n`),
          ],
          [`team/shared/${name}.md`, `# ${name}\n`],
        ]),
      ),
    });
    const server = await served(skills);
    let holding = false;
    let most = 0;
    const read = new Map<string, number>();
    const held: (() => void)[] = [];
    let quiet: NodeJS.Timeout | undefined;
    // Holds each read of a cited file until none has come for a while, then lets all held go: reads made
    // at once are held together, and one after another each alone.
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      const uri = /skill:\/\/team\/shared\/[a-z-]+\.md/.exec(body.toString())?.[0];
      if (!holding || uri === undefined) return false;
      read.set(uri, (read.get(uri) ?? 0) + 1);
      await new Promise<void>((resolve) => {
        held.push(resolve);
        most = Math.max(most, held.length);
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const release of held.splice(0)) release();
        }, 300);
      });
      return false;
    });
    try {
      expect((await sync(front.url, target)).counts).toMatchObject({ added: names.length });
      holding = true;

      const report = await sync(front.url, target);

      expect(report.counts).toMatchObject({ unchanged: names.length, updated: 0, skipped: 0 });
      expect(most).toBe(8);
      expect([...read.values()].every((count) => count === 1)).toBe(true);
      expect(read.size).toBe(names.length + 1);
    } finally {
      await front.close();
    }
  });

  it("names the first skill in order that it cannot tell, however the checks run at once finish", async () => {
    const { skills, target } = await workspace();
    const names = ["skill-a", "skill-b", "skill-c", "skill-d"];
    await writeTree(skills, {
      ...Object.fromEntries(
        names.flatMap((name) => [
          [`team/${name}/SKILL.md`, skillMd(name, `Does ${name} things.`, `See shared/${name}.md.\n`)],
          [`team/shared/${name}.md`, `# ${name}\n`],
        ]),
      ),
    });
    const server = await served(skills);
    let failing = false;
    // skill-d's read fails at once, skill-b's only later: the first to fail is not the first in order.
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      if (!failing) return false;
      if (body.includes("skill://team/shared/skill-d.md")) return true;
      if (!body.includes("skill://team/shared/skill-b.md")) return false;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return true;
    });
    try {
      await sync(front.url, target);
      failing = true;

      const checked = await sync(front.url, target, { mode: "check" }).catch((error: unknown) => error);

      expect(checked).toBeInstanceOf(SyncError);
      expect((checked as Error).message).toMatch(
        /^cannot tell whether skill-b is up to date: reading skill:\/\/team\/shared\/skill-b\.md/,
      );
    } finally {
      await front.close();
    }
  });

  it("copies no file of another skill that a skill's text names", async () => {
    const { skills, target } = await workspace();
    const manifest = skillMd(
      "review-code",
      "Review code changes.",
      "Then write-docs/SKILL.md, with write-docs/notes.md.\n",
    );
    await writeTree(skills, {
      "team/review-code/SKILL.md": manifest,
      "team/write-docs/SKILL.md": DOCS,
      "team/write-docs/notes.md": "notes\n",
    });
    const server = await served(skills);
    await sync(server.url, target);
    expect(await readTree(target)).toEqual({
      "review-code/SKILL.md": manifest,
      "write-docs/SKILL.md": DOCS,
      "write-docs/notes.md": "notes\n",
    });
  });
});

describe("skills to fetch", () => {
  // Regression: the skills to add or update were fetched one after another, each waiting for the last, so
  // a first sync or an update of many skills took a round trip or more a skill.
  it("are fetched at once, 8 reads at most in flight for them all, and told in the plan's order", async () => {
    const { skills, target } = await workspace();
    const names = Array.from({ length: 12 }, (_, index) => `skill-${String.fromCharCode(97 + index)}`);
    await writeTree(
      skills,
      Object.fromEntries(
        names.flatMap((name) => [
          [`team/${name}/SKILL.md`, skillMd(name, `Does ${name} things.`)],
          [`team/${name}/references/one.txt`, `${name} one\n`],
          [`team/${name}/references/two.txt`, `${name} two\n`],
        ]),
      ),
    );
    const server = await served(skills);
    let most = 0;
    const held: (() => void)[] = [];
    let quiet: NodeJS.Timeout | undefined;
    // Holds each read of a skill's file until none has come for a while, then lets all held go: reads made
    // at once are held together, and one after another each alone.
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      if (!body.toString().includes('"resources/read"')) return false;
      await new Promise<void>((resolve) => {
        held.push(resolve);
        most = Math.max(most, held.length);
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const release of held.splice(0)) release();
        }, 300);
      });
      return false;
    });
    try {
      const report = await sync(front.url, target);

      expect(report.counts).toMatchObject({ added: names.length, skipped: 0 });
      expect(most).toBe(8);
      expect(report.lines).toEqual(
        names.map(
          (name, index) => `[${index + 1}/${names.length}] ${name}: to add: 3 files fetched and verified`,
        ),
      );
      expect(Object.keys(await readTree(target))).toHaveLength(3 * names.length);
      expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(names);
    } finally {
      await front.close();
    }
  });
});

describe("an update", () => {
  // Regression: an update fetched every file of the skill again, those whose digest had not changed too.
  it("fetches only the files whose digest changed, and keeps the others from the copy here", async () => {
    const { skills, target } = await workspace();
    const notes = "# Notes\nFirst.\n";
    await writeTree(skills, { ...CATALOG, "team/review-code/references/notes.md": notes });
    const server = await served(skills);
    const reads = new Map<string, number>();
    const front = await cuttingProxy(new URL(server.url), (body) => {
      const text = body.toString();
      if (text.includes('"resources/read"')) {
        const uri = /"uri"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? "?";
        reads.set(uri, (reads.get(uri) ?? 0) + 1);
      }
      return false;
    });
    try {
      await sync(front.url, target);
      const changed = "# Notes\nSecond.\n";
      await writeTree(skills, { "team/review-code/references/notes.md": changed });
      await server.restart();
      reads.clear();

      const report = await sync(front.url, target);

      expect(report.counts).toMatchObject({ updated: 1, unchanged: 2, skipped: 0 });
      expect([...reads.keys()].sort()).toEqual([
        "skill://team/review-code/SKILL.md",
        "skill://team/review-code/references/notes.md",
        "skill://team/shared/checklist.md",
      ]);
      expect(report.lines).toContain(
        "[1/1] review-code: to update: 3 files fetched and verified, 1 unchanged file kept",
      );
      const installed = await readTree(target);
      expect(installed["review-code/references/style.md"]).toBe(STYLE);
      expect(installed["review-code/references/notes.md"]).toBe(changed);
      // What it kept is recorded as what it fetched would be: the next run has nothing to do.
      expect((await sync(front.url, target)).counts).toMatchObject({ unchanged: 3, updated: 0 });
    } finally {
      await front.close();
    }
  });
});

describe("a check or a dry run that cannot read a file a skill cites", () => {
  const failures: [string, true | ProxyAnswer][] = [
    ["a cut connection", true],
    ["a proxy's 502", { status: 502, headers: {} }],
  ];
  const cases = (["check", "dry-run"] as const).flatMap((mode) =>
    failures.map(([what, failure]) => [mode, what, failure] as const),
  );
  const CANNOT_TELL =
    /^cannot tell whether review-code is up to date: reading skill:\/\/team\/shared\/checklist\.md, a file it cites, failed: .+; try again when the server answers$/;

  /** Syncs CATALOG (as `env` serves it) through a proxy, then plans in `mode` while reads of the checklist fail. */
  async function planWhileFailing(
    mode: "check" | "dry-run",
    failure: true | ProxyAnswer,
    catalog: Record<string, string>,
    env = {},
  ) {
    const { skills, target } = await workspace();
    await writeTree(skills, catalog);
    const server = await served(skills, env);
    let failing = false;
    const front = await cuttingProxy(new URL(server.url), (body) =>
      failing && body.includes("skill://team/shared/checklist.md") ? failure : false,
    );
    try {
      await sync(front.url, target);
      failing = true;
      return await sync(front.url, target, { mode }).catch((error: unknown) => error);
    } finally {
      await front.close();
    }
  }

  // Regression: a cited file that went unanswered made --check call the skill out of date (exit 1), so
  // CI asked for a sync that had nothing to change; --dry-run printed `update review-code` for it.
  it.each(cases)(
    "%s says it cannot tell after %s, not that the skill needs an update",
    async (mode, _, failure) => {
      const planned = await planWhileFailing(mode, failure, CATALOG);
      expect(planned).toBeInstanceOf(SyncError);
      expect((planned as Error).message).toMatch(CANNOT_TELL);
    },
  );

  it.each(cases)(
    "%s says it cannot tell after %s, for a skill the audit refused",
    async (mode, _, failure) => {
      const catalog = { ...CATALOG, "team/shared/checklist.md": "# Checklist\n- \u202Etests pass\n" };
      const planned = await planWhileFailing(mode, failure, catalog, { UNSAFE_SKILLS: "serve" });
      expect(planned).toBeInstanceOf(SyncError);
      expect((planned as Error).message).toMatch(CANNOT_TELL);
    },
  );
});

describe("two servers syncing into one folder", () => {
  it("each owns what it installed, and a skill the other installed is reported as that server's", async () => {
    const { root, target } = await workspace();
    await writeTree(path.join(root, "a"), {
      "team/review-code/SKILL.md": REVIEW,
      "team/write-docs/SKILL.md": DOCS,
    });
    await writeTree(path.join(root, "b"), {
      "other/deploy-app/SKILL.md": DEPLOY,
      "other/review-code/SKILL.md": REVIEW,
    });
    const a = await served(path.join(root, "a"));
    const b = await served(path.join(root, "b"));
    expect((await sync(a.url, target)).counts).toMatchObject({ added: 2, skipped: 0 });

    const second = await sync(b.url, target);

    expect(second.counts).toMatchObject({ added: 1, skipped: 1 });
    expect(second.lines).toContain(
      `review-code: skipped: sync installed it here from another server URL, ${a.url}, which owns it: left alone`,
    );
    const lock = await readLockIn(target);
    expect(lock.sources.map((source) => [source.server, Object.keys(source.skills).sort()])).toEqual(
      [
        [a.url, ["review-code", "write-docs"]],
        [b.url, ["deploy-app"]],
      ].sort(),
    );
    // The same server under another URL (its scope in the query) owns nothing here, and says which URL does.
    const renamed = await sync(`${a.url}?pack=team`, target);
    expect(renamed.lines).toContainEqual(
      expect.stringContaining(
        `write-docs: skipped: sync installed it here from another server URL, ${a.url}`,
      ),
    );
  });
});

describe("two servers serving one name into one folder", () => {
  // Regression: with the first server's folder for it gone (deleted, or a run killed between the two
  // renames of a swap), the second installed its own skill there; both locks claimed the folder, and the
  // first server's next runs called it "changed here", or updated or removed the other server's skill.
  it("leaves the name to the server that installed it, also while its folder is gone", async () => {
    const { root, target } = await workspace();
    const other = skillMd("review-code", "Review code another way.");
    await writeTree(path.join(root, "a"), { "team/review-code/SKILL.md": REVIEW });
    await writeTree(path.join(root, "b"), {
      "other/deploy-app/SKILL.md": DEPLOY,
      "other/review-code/SKILL.md": other,
    });
    const a = await served(path.join(root, "a"));
    const b = await served(path.join(root, "b"));
    expect((await sync(a.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
    await rm(path.join(target, "review-code"), { recursive: true });

    const second = await sync(b.url, target);

    expect(second.counts).toMatchObject({ added: 1, skipped: 1 });
    expect(second.lines).toContainEqual(
      `review-code: skipped: sync installed it here from another server URL, ${a.url}, which owns it: left alone; its folder is gone: a sync from ${a.url} installs it again, or drops it from the lock if that server no longer serves it`,
    );
    await expect(access(path.join(target, "review-code"))).rejects.toThrow();
    expect((await sync(a.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
    expect((await readTree(target))["review-code/SKILL.md"]).toBe(REVIEW);
    const lock = await readLockIn(target);
    expect(lock.sources.map((source) => [source.server, Object.keys(source.skills).sort()])).toEqual(
      [
        [a.url, ["review-code"]],
        [b.url, ["deploy-app"]],
      ].sort(),
    );
  });
});

describe("a skill's file named outside ASCII, listed by the file system in NFD (macOS's HFS+)", () => {
  // Regression: the folder listed caf\u0065\u0301.json where sync wrote and recorded caf\u00e9.json: every later
  // run took the skill for one changed here, and never updated it again.
  it("is the file sync wrote: the skill is unchanged, and updated when the server changes it", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, {
      "team/write-docs/SKILL.md": DOCS,
      "team/write-docs/caf\u00e9.json": "{}\n",
    });
    const server = await served(skills);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
    // What HFS+ does: the name as it stores it.
    await rename(
      path.join(target, "write-docs/caf\u00e9.json"),
      path.join(target, "write-docs/cafe\u0301.json"),
    );

    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1, skipped: 0 });
    await writeTree(skills, { "team/write-docs/SKILL.md": skillMd("write-docs", "Write better docs.") });
    await server.restart();
    expect((await sync(server.url, target)).counts).toMatchObject({ updated: 1, skipped: 0 });
  });
});

describe("a skill with two spellings of one folder (refs/ and Refs/)", () => {
  // Sync refuses a listing of both (on macOS and Windows both files went into the folder made first, under
  // a path the lock did not record; test/sync/paths.test.ts). The server served both, so sync skipped the
  // whole skill on every system; it now serves one spelling, the lowercase one, and the skill is synced.
  it("is synced as the server serves it, the other spelling left out by the server", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, CATALOG);
    const server = await served(skills);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 3, skipped: 0 });
    await writeTree(skills, {
      "team/review-code/References/extra.md": "# Extra\n",
      "other/zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs."),
      "other/zip-logs/Refs/a.md": "a\n",
      "other/zip-logs/refs/b.md": "b\n",
    });
    await server.restart();

    const report = await sync(server.url, target);

    expect(report.counts).toMatchObject({ added: 1, updated: 0, skipped: 0, unchanged: 3 });
    expect(await readTree(target)).toEqual({
      ...INSTALLED,
      "zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs."),
      "zip-logs/refs/b.md": "b\n",
    });
  });
});

describe("a server that stops answering part way", () => {
  it("is asked once more, then the skills left are not fetched, with one line saying why", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, {
      "team/deploy-app/SKILL.md": DEPLOY,
      "team/review-code/SKILL.md": REVIEW,
      "team/write-docs/SKILL.md": DOCS,
      "team/zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs."),
    });
    const server = await served(skills);
    // In front of the server: once the skills are asked for, every connection but deploy-app's (and its
    // cited script's) is cut, as a server gone after the first skill. The skills are fetched at once.
    let fetching = false;
    const requests: string[] = [];
    const front = await cuttingProxy(new URL(server.url), (body) => {
      const text = body.toString();
      fetching ||= text.includes("resources/read");
      const gone = fetching && !text.includes("deploy");
      if (gone) requests.push(text);
      return gone;
    });
    try {
      const progress = recordedProgress();
      const report = await sync(front.url, target, { progress });

      expect(report.counts).toMatchObject({ added: 1, skipped: 3 });
      expect(progress.lines).toEqual([
        "[1/4] deploy-app: to add: 1 file fetched and verified",
        expect.stringMatching(/^\[2\/4\] review-code: skipped: reading .* failed: fetch failed/),
        expect.stringMatching(
          /^the server stopped answering \(fetch failed.*\): 2 more skills not fetched; run sync again when it is back$/,
        ),
      ]);
      // The reads of the other skills, sent at once, then the one question whether the server still
      // answers: nothing more, each sent three times, as a connection cut before any answer is.
      expect(requests.map((request) => /"method":"([^"]+)"/.exec(request)?.[1]).sort()).toEqual([
        ...Array<string>(9).fill("resources/read"),
        ...Array<string>(3).fill("skills/get"),
      ]);
      expect(Object.keys(await readTree(target))).toEqual(["deploy-app/SKILL.md"]);
      expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(["deploy-app"]);
    } finally {
      await front.close();
    }
  });

  // The skills fetched past the one whose read failed were dropped with it: the next run read them again.
  it("keeps the files of the skills it fetched past the one that failed, and the next run reuses them", {
    timeout: 60_000,
  }, async () => {
    const { skills, target } = await workspace();
    const notes = (name: string) => `${name} notes\n`;
    const names = ["alpha", "beta", "gamma"];
    await writeTree(
      skills,
      Object.fromEntries(
        names.flatMap((name) => [
          [`team/${name}/SKILL.md`, skillMd(name, `The ${name} skill.`)],
          [`team/${name}/notes.md`, notes(name)],
        ]),
      ),
    );
    const server = await served(skills);
    // The kept files of runs from the proxy's URL, which the runs sync from.
    const kept = () => path.join(target, STAGING_DIR, VERIFIED_DIR, keptFolderName(front.url));
    const hex = (text: string) => createHash("sha256").update(text).digest("hex");
    // alpha's notes are answered once beta and gamma are fetched and staged; then the server is gone.
    let gone = false;
    let cutting = true;
    const reads: string[] = [];
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      const text = body.toString();
      if (text.includes("resources/read")) reads.push(text);
      if (gone) return true;
      if (!cutting || !text.includes("resources/read") || !text.includes("alpha/notes.md")) return false;
      await vi.waitFor(
        async () =>
          expect(await readdir(kept())).toEqual(
            expect.arrayContaining([hex(notes("beta")), hex(notes("gamma"))]),
          ),
        { timeout: 20_000 },
      );
      gone = true;
      return true;
    });
    try {
      const first = await sync(front.url, target);
      expect(first.counts).toMatchObject({ added: 0, skipped: 3 });
      expect(await readdir(kept())).toEqual(
        expect.arrayContaining([hex(notes("beta")), hex(notes("gamma"))]),
      );

      gone = false;
      cutting = false;
      reads.length = 0;
      const next = await sync(front.url, target);
      expect(next.counts).toMatchObject({ added: 3, skipped: 0 });
      expect(reads.filter((read) => read.includes("notes.md"))).toEqual([
        expect.stringContaining("alpha/notes.md"),
      ]);
      expect(Object.keys(await readTree(target))).toHaveLength(6);
      await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
    } finally {
      await front.close();
    }
  });
});

describe("a server that asks sync to wait", () => {
  // Regression: a 429 (the server's RATE_LIMIT_PER_MINUTE) or a 503 while it sheds load failed the request
  // at once, Retry-After unread: the skill was skipped, then "the server stopped answering", and the
  // skills left were not fetched; a check took a pack file it could not read for an update.
  it("waits as its Retry-After says, then goes on", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, CATALOG);
    const server = await served(skills);
    let requests = 0;
    const proxy = await cuttingProxy(new URL(server.url), () => {
      requests += 1;
      // Every third request, once each: the one that follows is let through.
      if (requests % 3 !== 0) return false;
      const status = requests % 2 === 0 ? 503 : 429;
      return { status, headers: { "retry-after": "0", "content-type": "application/json" } };
    });
    try {
      const report = await sync(proxy.url, target);
      expect(report.counts).toEqual({
        added: 3,
        updated: 0,
        removed: 0,
        adopted: 0,
        skipped: 0,
        unchanged: 0,
      });
      expect(await readTree(target)).toEqual(INSTALLED);

      const check = await sync(proxy.url, target, { mode: "check" });
      expect(check.steps.map((step) => step.kind)).toEqual(["keep", "keep", "keep"]);
    } finally {
      await proxy.close();
    }
  });
});

describe("a skill copied into several packs", () => {
  it("is installed once when the copies are the same file for file, and skipped when they differ", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, {
      "vendor/review-code/SKILL.md": REVIEW,
      "vendor/review-code/references/style.md": STYLE,
      "team/review-code/SKILL.md": REVIEW,
      "team/review-code/references/style.md": STYLE,
      "vendor/write-docs/SKILL.md": DOCS,
      "team/write-docs/SKILL.md": skillMd("write-docs", "Write documentation pages, our way."),
    });
    const server = await served(skills);
    const report = await sync(server.url, target);
    expect(report.counts).toMatchObject({ added: 1, skipped: 1 });
    expect(report.lines).toContainEqual(
      expect.stringMatching(/^write-docs: skipped: the server serves 2 skills of that name/),
    );
    expect(await readTree(target)).toEqual({
      "review-code/SKILL.md": REVIEW,
      "review-code/references/style.md": STYLE,
    });
    expect((await readLockIn(target)).sources[0]?.skills["review-code"]?.uri).toBe(
      "skill://team/review-code/SKILL.md",
    );
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1, skipped: 1 });
  });
});

// The extension publishes a nested skill below the skill it is nested in, whose manifest lists its files:
// each is installed in a folder of its own name, the outer one with the nested one's files among its own.
describe("a skill nested in another", () => {
  it("is installed on its own, and its files with the skill around it; the next run has nothing to do", async () => {
    const { skills, target } = await workspace();
    const kit = skillMd("kit", "A collection of skills.");
    const web = skillMd("web", "Web, nested in kit.", "Use shared/tokens.md and engine.js.\n");
    const engine = "export const engine = 1;\n";
    const tokens = "# Tokens\n";
    await writeTree(skills, {
      "n/kit/SKILL.md": kit,
      "n/kit/web/SKILL.md": web,
      "n/kit/web/engine.js": engine,
      "n/shared/tokens.md": tokens,
    });
    const server = await served(skills);
    const report = await sync(server.url, target);
    expect(report.counts).toMatchObject({ added: 2, skipped: 0 });
    expect(await readTree(target)).toEqual({
      "kit/SKILL.md": kit,
      "kit/shared/tokens.md": tokens,
      "kit/web/SKILL.md": web,
      "kit/web/engine.js": engine,
      "web/SKILL.md": web,
      "web/engine.js": engine,
      "web/shared/tokens.md": tokens,
    });
    const locked = (await readLockIn(target)).sources[0]?.skills;
    expect(locked?.kit?.uri).toBe("skill://n/kit/kit/SKILL.md");
    expect(locked?.web).toMatchObject({
      uri: "skill://n/kit/kit/web/SKILL.md",
      packFiles: { "shared/tokens.md": { uri: "skill://n/shared/tokens.md" } },
    });
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 2 });
  });
});

describe("a lock a newer sync wrote", () => {
  // Regression: every object of the lock was read strictly, so a key a newer sync added (as `refused` once
  // was) stopped this one with "move it away to start over".
  it("is read ignoring the keys this version does not know, kept for other servers, dropped where it rewrites", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, { "team/review-code/SKILL.md": REVIEW, "team/shared/checklist.md": CHECKLIST });
    const server = await served(skills);
    await sync(server.url, target);
    const written = await readLockIn(target);
    const [own] = written.sources;
    const skill = own?.skills["review-code"];
    const pack = skill?.packFiles["shared/checklist.md"];
    if (own === undefined || skill === undefined || pack === undefined) throw new Error("not installed");
    const other = {
      ...own,
      server: "http://other.example/mcp",
      skills: {},
      future: { by: "a newer sync" },
    };
    const newer = {
      version: 1,
      future: true,
      sources: [
        {
          ...own,
          future: [1],
          scope: { ...own.scope, future: "x" },
          skills: {
            "review-code": {
              ...skill,
              future: "y",
              packFiles: { "shared/checklist.md": { ...pack, future: 2 } },
            },
          },
        },
        other,
      ],
    };
    const text = `${JSON.stringify(newer, null, 2)}\n`;
    await writeFile(path.join(target, LOCK_FILE), text);

    // Nothing to change: nothing written, the newer sync's keys included.
    expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 1 });
    expect((await sync(server.url, target, { mode: "check" })).steps.map((step) => step.kind)).toEqual([
      "keep",
    ]);
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(text);

    await writeTree(skills, { "team/write-docs/SKILL.md": DOCS });
    await server.restart();
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, unchanged: 1 });

    const rewritten = await readLockIn(target);
    expect(rewritten).not.toHaveProperty("future");
    // The other server's record is not this run's: kept as it was, its keys included.
    expect(rewritten.sources.find((item) => item.server === other.server)).toEqual(other);
    // This server's record is this run's: written as this version knows it, as an older sync would.
    const rewrittenOwn = rewritten.sources.find((item) => item.server === server.url);
    expect(rewrittenOwn?.skills["review-code"]).toEqual(skill);
    expect(JSON.stringify(rewrittenOwn)).not.toContain("future");
  });

  it("stops on a lock of a later version, saying so", async () => {
    const { target } = await workspace();
    await writeTree(target, { [LOCK_FILE]: JSON.stringify({ version: 2, sources: [] }) });
    await expect(sync("http://127.0.0.1:9/mcp", target, { mode: "check" })).rejects.toThrow(
      /written by a newer version of skills-mcp sync \(lock version 2\); update skills-mcp/,
    );
  });
});

describe("skills the server leaves out of the Skills extension", () => {
  it("are named in a warning, as the tools still serve them and sync cannot install them", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, {
      ...CATALOG,
      // A file over the 8 MiB a read carries, and a description over the extension's 1,024 characters.
      "team/big-assets/SKILL.md": skillMd("big-assets", "Use the big assets."),
      "team/big-assets/assets/data.txt": "x".repeat(8 * 1024 * 1024 + 1),
      "other/wordy/SKILL.md": skillMd("wordy", "w".repeat(1025)),
    });
    const server = await served(skills);
    const report = await sync(server.url, target);
    expect(Object.keys(await readTree(target))).toEqual(Object.keys(INSTALLED));
    expect(report.counts).toMatchObject({ added: 3, skipped: 0 });
    expect(report.lines.filter((line) => line.includes("left out"))).toEqual([
      expect.stringMatching(
        /^2 skills the server's tools serve are left out of its Skills extension, so not synced: other\/wordy, team\/big-assets \(.*\); read them with its tools$/,
      ),
    ]);
  });

  it("keep a skill sync installed that grew past the extension's limits: the tools still serve it", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, CATALOG);
    const server = await served(skills);
    await sync(server.url, target);
    await writeFile(path.join(skills, "team", "write-docs", "data.txt"), "x".repeat(8 * 1024 * 1024 + 1));
    await server.restart();

    const planned = await sync(server.url, target, { mode: "check" });
    const report = await sync(server.url, target);

    for (const run of [planned, report]) {
      expect(run.steps.find((step) => step.name === "write-docs")).toMatchObject({
        kind: "skip",
        reason: expect.stringContaining("the server's tools still serve it"),
      });
      expect(isOutOfDate(run.steps)).toBe(false);
    }
    expect(report.counts).toMatchObject({ removed: 0, skipped: 1 });
    expect(await readTree(target)).toEqual(INSTALLED);
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toContain("write-docs");
  });

  // Regression: a tools call that failed (the connection cut, a proxy's 502) read as "the tools do not
  // serve it", so a server failing for a moment had sync delete a skill its tools still serve.
  it("keep such a skill when the server cannot be asked whether its tools serve it", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, CATALOG);
    const server = await served(skills);
    // Once cut, every tools call fails: list_packs (so no warning names the skill), then read_skill.
    let cut = false;
    const proxy = await cuttingProxy(new URL(server.url), (body) => cut && body.includes('"tools/call"'));
    try {
      await sync(proxy.url, target);
      await writeFile(path.join(skills, "team", "write-docs", "data.txt"), "x".repeat(8 * 1024 * 1024 + 1));
      await server.restart();
      cut = true;

      const report = await sync(proxy.url, target);

      expect(report.steps.find((step) => step.name === "write-docs")).toMatchObject({
        kind: "skip",
        reason: expect.stringContaining("the server could not say whether it still serves it"),
      });
      expect(report.counts).toMatchObject({ removed: 0, skipped: 1 });
      expect(await readTree(target)).toEqual(INSTALLED);
      // A check cannot tell whether the folder is up to date: it called it so (exit 0).
      for (const mode of ["check", "dry-run"] as const) {
        await expect(sync(proxy.url, target, { mode })).rejects.toThrow(
          /^cannot tell whether write-docs is up to date: the server could not say whether it still serves it \(.+\); try again when the server answers$/,
        );
      }
    } finally {
      await proxy.close();
    }
  });

  // Regression: past the 20 packs whose left-out skills sync asks the names of, a skill that grew past
  // the extension's limits was only counted, and sync deleted it as "no longer served".
  it("keep such a skill past the 20 packs asked about by name: the tools still serve it", async () => {
    const { skills, target } = await workspace();
    const crowd: Record<string, string> = {};
    for (let index = 0; index < 21; index += 1) {
      const pack = `p${String(index).padStart(2, "0")}`;
      crowd[`${pack}/wordy-${pack}/SKILL.md`] = skillMd(`wordy-${pack}`, "w".repeat(1025));
    }
    await writeTree(skills, { ...crowd, "zz/keeper/SKILL.md": skillMd("keeper", "Keep me.") });
    const server = await served(skills);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1 });
    await writeFile(path.join(skills, "zz", "keeper", "data.txt"), "x".repeat(8 * 1024 * 1024 + 1));
    await server.restart();

    const planned = await sync(server.url, target, { mode: "check" });
    const report = await sync(server.url, target);

    for (const run of [planned, report]) {
      expect(run.steps).toEqual([
        expect.objectContaining({
          kind: "skip",
          name: "keeper",
          reason: expect.stringContaining("the server's tools still serve it"),
        }),
      ]);
    }
    expect(report.counts).toMatchObject({ removed: 0, skipped: 1 });
    expect(await readTree(target)).toEqual({ "keeper/SKILL.md": skillMd("keeper", "Keep me.") });
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(["keeper"]);
  });

  // Regression: the skills of a pack named outside ASCII were looked for under its percent-encoded name:
  // every one of them was said to be left out of the extension, on every run, though each was installed.
  it("are not said of a pack named outside ASCII whose skills the extension all lists", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, { "équipe/review-code/SKILL.md": REVIEW, "équipe/write-docs/SKILL.md": DOCS });
    const server = await served(skills);
    const report = await sync(server.url, target);
    expect(report.counts).toMatchObject({ added: 2, skipped: 0 });
    expect(report.lines.filter((line) => line.includes("left out"))).toEqual([]);
  });

  // Regression: a pack named outside ASCII is percent-encoded in URIs: such a skill was looked for under
  // the encoded name, never found among those the tools serve, and removed.
  it("keep such a skill in a pack named outside ASCII", async () => {
    const { skills, target } = await workspace();
    await writeTree(skills, { "équipe/keeper/SKILL.md": skillMd("keeper", "Keep me.") });
    const server = await served(skills);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1 });
    await writeFile(path.join(skills, "équipe", "keeper", "data.txt"), "x".repeat(8 * 1024 * 1024 + 1));
    await server.restart();

    const report = await sync(server.url, target);

    expect(report.steps).toEqual([
      expect.objectContaining({
        kind: "skip",
        name: "keeper",
        reason: expect.stringContaining("the server's tools still serve it"),
      }),
    ]);
    expect(report.lines).toContainEqual(
      expect.stringMatching(
        /^1 skill the server's tools serve is left out of its Skills extension, so not synced: équipe\/keeper /,
      ),
    );
    expect(Object.keys(await readTree(target))).toEqual(["keeper/SKILL.md"]);
  });

  // Regression: the tools do not count a skill hidden from models, so one such skill in the extension hid
  // the count of the skill left out beside it, and sync deleted that one as "no longer served".
  it("keep such a skill beside one hidden from models, which the tools' count does not tell", async () => {
    const { skills, target } = await workspace();
    const quiet =
      "---\nname: quiet\ndescription: Only by name.\ndisable-model-invocation: true\n---\n\n# Quiet\n";
    await writeTree(skills, {
      "team/keeper/SKILL.md": skillMd("keeper", "Keep me."),
      "team/quiet/SKILL.md": quiet,
    });
    const server = await served(skills);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 2 });
    await writeFile(path.join(skills, "team", "keeper", "data.txt"), "x".repeat(8 * 1024 * 1024 + 1));
    await server.restart();

    const report = await sync(server.url, target);

    expect(report.steps.find((step) => step.name === "keeper")).toMatchObject({
      kind: "skip",
      reason: expect.stringContaining("the server's tools still serve it"),
    });
    expect(report.counts).toMatchObject({ removed: 0, skipped: 1, unchanged: 1 });
    expect(Object.keys(await readTree(target))).toEqual(["keeper/SKILL.md", "quiet/SKILL.md"]);
  });
});

describe.each(ERAS)("a server serving the Skills extension and no tools (%s era)", (era) => {
  it("has a skill it no longer serves removed: no tools to serve it either", async () => {
    const catalog: Record<string, Record<string, string>> = {
      "write-docs": { "SKILL.md": DOCS },
      "deploy-app": { "SKILL.md": DEPLOY },
    };
    const entries = () =>
      Promise.all(Object.entries(catalog).map(([name, files]) => skillEntry(`team/${name}`, files)));
    const source: SkillSource = {
      list: async () => ({ skills: await entries() }),
      get: async (uri) => (await entries()).find((entry) => entry.uri === uri),
      read: async (uri) => {
        const [name = "", file = ""] = uri.slice("skill://team/".length).split("/");
        const text = catalog[name]?.[file];
        return text === undefined ? undefined : { text, mimeType: "text/markdown" };
      },
    };
    const extension = new SkillsExtension({ source });
    const server = await serveMcp(() => {
      const mcp = new McpServer({ name: "extension-only", version: "1" });
      extension.attach(mcp);
      return mcp;
    });
    onTestFinished(() => server.close());
    const { target } = await workspace();
    await sync(server.url, target, { era });
    delete catalog["deploy-app"];

    const report = await sync(server.url, target, { era });

    expect(report.lines).toContain("deploy-app: removed (no longer served)");
    expect(await readTree(target)).toEqual({ "write-docs/SKILL.md": DOCS });
  });
});

describe("the audit of what sync installs", () => {
  it("fetches and audits a refused skill again when a pack file it cites changes", async () => {
    const { skills, target } = await workspace();
    const env = { UNSAFE_SKILLS: "serve" };
    await writeTree(skills, { ...CATALOG, "team/shared/checklist.md": "# Checklist\n- \u202Etests pass\n" });
    const server = await served(skills, env);
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 2, skipped: 1 });
    expect((await readLockIn(target)).sources[0]?.refused?.["review-code"]?.packFiles).toEqual({
      "shared/checklist.md": { uri: "skill://team/shared/checklist.md", digest: expect.any(String) },
    });
    expect(isOutOfDate((await sync(server.url, target, { mode: "check" })).steps)).toBe(false);

    await writeFile(path.join(skills, "team", "shared", "checklist.md"), CHECKLIST);
    await server.restart();
    const check = await sync(server.url, target, { mode: "check" });
    expect(check.steps.find((step) => step.name === "review-code")).toMatchObject({ kind: "add" });
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
    expect(await readTree(target)).toEqual(INSTALLED);
  });

  // Regression: the pack files of the skills the audit refused were read again one after another while
  // planning, each waiting for the last: a round trip a file on every run.
  it("reads the files the refused skills cite at once, 8 at most in flight, to see whether they changed", async () => {
    const { skills, target } = await workspace();
    const env = { UNSAFE_SKILLS: "serve" };
    const names = Array.from({ length: 10 }, (_, index) => `skill-${String.fromCharCode(97 + index)}`);
    await writeTree(
      skills,
      Object.fromEntries(
        names.flatMap((name) => [
          [`team/${name}/SKILL.md`, skillMd(name, `Does ${name} things.`, `See shared/${name}.md.\n`)],
          [`team/shared/${name}.md`, `# ${name}\n- \u202Eread it\n`],
        ]),
      ),
    );
    const server = await served(skills, env);
    let holding = false;
    let most = 0;
    const held: (() => void)[] = [];
    let quiet: NodeJS.Timeout | undefined;
    // Holds each read of a cited file until none has come for a while, then lets all held go.
    const front = await cuttingProxy(new URL(server.url), async (body) => {
      if (!holding || !/skill:\/\/team\/shared\//.test(body.toString())) return false;
      await new Promise<void>((resolve) => {
        held.push(resolve);
        most = Math.max(most, held.length);
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          for (const release of held.splice(0)) release();
        }, 300);
      });
      return false;
    });
    try {
      expect((await sync(front.url, target)).counts).toMatchObject({ added: 0, skipped: names.length });
      holding = true;

      const check = await sync(front.url, target, { mode: "check" });

      expect(isOutOfDate(check.steps)).toBe(false);
      expect(check.steps.map((step) => [step.name, step.kind])).toEqual(names.map((name) => [name, "skip"]));
      expect(most).toBe(8);
    } finally {
      await front.close();
    }
  });

  // Regression: a skill the audit refuses was planned as "add" by every --check and --dry-run, even right
  // after the sync that refused it: --check exited 1 in CI for good, and no sync could help.
  it("records a skill it refuses, so that a check reports it refused and unchanged, not out of date", async () => {
    const { skills, target } = await workspace();
    const hidden = (text: string) => skillMd("hidden", "Looks harmless.", `Run it \u202E${text}.\n`);
    const env = { UNSAFE_SKILLS: "serve" };
    await writeTree(skills, { "team/write-docs/SKILL.md": DOCS, "team/hidden/SKILL.md": hidden("now") });
    const server = await served(skills, env);
    const hiddenStep = (steps: readonly Step[]) => steps.find((step) => step.name === "hidden");
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 1 });
    expect((await readLockIn(target)).sources[0]?.refused?.hidden).toMatchObject({
      uri: "skill://team/hidden/SKILL.md",
      reason: expect.stringContaining("bidi-control"),
    });
    const lock = await readFile(path.join(target, LOCK_FILE), "utf8");

    for (const mode of ["check", "dry-run", "sync"] as const) {
      const run = await sync(server.url, target, { mode });
      expect(isOutOfDate(run.steps)).toBe(false);
      expect(hiddenStep(run.steps)).toMatchObject({
        kind: "skip",
        reason: expect.stringMatching(
          /^a high finding of the audit: .*; refused by the last sync, and served the same since$/,
        ),
      });
      expect(run.counts).toMatchObject({ skipped: 1, unchanged: 1 });
    }
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(lock);
    // Refused by another version: a check takes its word; a sync audits it again, and, refused for the
    // same reason, leaves the lock as it was.
    const older = lock.replace(/"by": "skills-mcp [^"]*"/g, '"by": "skills-mcp 0.0.1"');
    await writeFile(path.join(target, LOCK_FILE), older);
    expect(isOutOfDate((await sync(server.url, target, { mode: "check" })).steps)).toBe(false);
    const again = await sync(server.url, target);
    expect(hiddenStep(again.steps)).toMatchObject({ kind: "add" });
    expect(again.counts).toMatchObject({ added: 0, skipped: 1 });
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(older);
    await writeFile(path.join(target, LOCK_FILE), lock);
    // --allow-unsafe would install it: for that, the folder is out of date.
    const unsafe = await sync(server.url, target, { mode: "check", allowUnsafe: true });
    expect(hiddenStep(unsafe.steps)).toMatchObject({ kind: "add" });

    // Changed on the server: to be fetched and audited again.
    await writeFile(path.join(skills, "team", "hidden", "SKILL.md"), hidden("later"));
    await server.restart();
    expect(hiddenStep((await sync(server.url, target, { mode: "check" })).steps)).toMatchObject({
      kind: "add",
    });
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 0, skipped: 1 });
    expect(isOutOfDate((await sync(server.url, target, { mode: "check" })).steps)).toBe(false);

    // Fixed on the server: installed, and the refusal forgotten.
    await writeFile(path.join(skills, "team", "hidden", "SKILL.md"), skillMd("hidden", "Now harmless."));
    await server.restart();
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
    expect((await readLockIn(target)).sources[0]?.refused).toBeUndefined();

    // An update the audit refuses: the installed copy stays, and a check does not ask for the update.
    await writeFile(path.join(skills, "team", "hidden", "SKILL.md"), hidden("again"));
    await server.restart();
    expect((await sync(server.url, target)).counts).toMatchObject({ updated: 0, skipped: 1 });
    const check = await sync(server.url, target, { mode: "check" });
    expect(isOutOfDate(check.steps)).toBe(false);
    expect(hiddenStep(check.steps)).toMatchObject({
      kind: "skip",
      keep: { uri: "skill://team/hidden/SKILL.md" },
    });
    expect((await readTree(target))["hidden/SKILL.md"]).toBe(skillMd("hidden", "Now harmless."));
  });

  it("installs a skill whose description is a YAML block scalar: its line breaks are not hidden characters", async () => {
    const { skills, target } = await workspace();
    const folded =
      "---\nname: folded\ndescription: >\n  Use when a task\n  needs folding.\n---\n\n# Folded\n";
    const literal =
      "---\nname: literal\ndescription: |\n  Use when a task\n  needs lines.\n---\n\n# Literal\n";
    await writeTree(skills, { "team/folded/SKILL.md": folded, "team/literal/SKILL.md": literal });
    const server = await served(skills);
    const report = await sync(server.url, target);
    expect(report.lines.filter((line) => line.includes("skipped"))).toEqual([]);
    expect(report.counts).toMatchObject({ added: 2, skipped: 0 });
    expect(await readTree(target)).toEqual({ "folded/SKILL.md": folded, "literal/SKILL.md": literal });
  });
});
