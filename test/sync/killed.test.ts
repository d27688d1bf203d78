/**
 * A sync killed part way leaves every skill whole, old or new, and the next run finishes the work. The
 * server is the SDK's skills extension over a source that holds one file's read until the test lets go,
 * so the kill always lands at the same point: one skill fetched, the next one half read.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { access, cp, mkdir, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { constants, hostname } from "node:os";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { type SkillSource, SkillsExtension, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LOCK_FILE, type Lock } from "../../src/sync/lock.js";
import { RUN_LOCK_FILE, takeRunLock } from "../../src/sync/run-lock.js";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { KEPT_UNUSED_DAYS, keptFolderName, VERIFIED_DIR } from "../../src/sync/verified.js";
import { canRunAsPid1, MAIN, pidOf } from "../helpers/process.js";
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

type Catalog = Record<string, Record<string, string>>;

const asPid1 = await canRunAsPid1();

const V1: Catalog = {
  alpha: { "SKILL.md": skillMd("alpha", "First."), "notes.md": "alpha notes v1\n" },
  beta: { "SKILL.md": skillMd("beta", "Second."), "notes.md": "beta notes v1\n" },
  gamma: { "SKILL.md": skillMd("gamma", "Third."), "notes.md": "gamma notes\n" },
};
const V2: Catalog = {
  alpha: { "SKILL.md": skillMd("alpha", "First.", "# Alpha, v2\n"), "notes.md": "alpha notes v1\n" },
  beta: { "SKILL.md": skillMd("beta", "Second."), "notes.md": "beta notes v2\n" },
  gamma: V1.gamma ?? {},
  delta: { "SKILL.md": skillMd("delta", "Fourth.") },
};

/** The installed tree a catalog makes: each skill's files under its name. */
function installed(catalog: Catalog): Record<string, string> {
  const files = Object.entries(catalog).flatMap(([name, skill]) =>
    Object.entries(skill).map(([file, text]) => [`${name}/${file}`, text] as const),
  );
  return Object.fromEntries(files.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The catalog served now, and a read held until `release`: `held` settles when that read arrives. */
interface Stage {
  catalog: Catalog;
  /** Every file read, by URI, in order. */
  reads: string[];
  hold?: string;
  held?: () => void;
  release?: () => void;
}

function serverOf(stage: Stage): () => McpServer {
  const entries = async () =>
    Promise.all(Object.entries(stage.catalog).map(([name, files]) => skillEntry(`team/${name}`, files)));
  const source: SkillSource = {
    list: async () => ({ skills: await entries() }),
    get: async (uri) => (await entries()).find((entry) => entry.uri === uri),
    read: async (uri) => {
      const [name, ...file] = uri.slice("skill://team/".length).split("/");
      const text = stage.catalog[name ?? ""]?.[file.join("/")];
      if (text === undefined) return undefined;
      stage.reads.push(uri);
      if (uri === stage.hold) {
        stage.held?.();
        await new Promise<void>((resolve) => {
          stage.release = resolve;
        });
      }
      return { text, mimeType: "text/markdown" };
    },
  };
  const extension = new SkillsExtension({ source });
  return () => {
    const mcp = new McpServer({ name: "held", version: "1" });
    extension.attach(mcp);
    return mcp;
  };
}

/** `skills-mcp sync <url> --to <folder>` as a process of its own, from source. */
function runCli(
  url: string,
  folder: string,
  nodeArgs: readonly string[] = [],
): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [...nodeArgs, ...MAIN, "sync", url, "--to", folder], {
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      if (code !== 0 && code !== null) console.error(stderr);
      resolve(code);
    }),
  );
  return { child, exited, stderr: () => stderr };
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let target: string;
let server: Served;
let stage: Stage;
beforeEach(async () => {
  root = await tempFolder();
  target = path.join(root.dir, "target");
  stage = { catalog: V1, reads: [] };
  server = await serveMcp(serverOf(stage));
});
afterEach(async () => {
  stage.release?.();
  await server.close();
  await root.remove();
});

describe("a sync killed part way", () => {
  it("leaves every skill as it was, and the next run finishes", { timeout: 120_000 }, async () => {
    expect(await runCli(server.url, target).exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V1));
    const lock = await readFile(path.join(target, LOCK_FILE), "utf8");

    stage.catalog = V2;
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const run = runCli(server.url, target);
    await held;
    run.child.kill("SIGKILL");
    expect(await run.exited).toBeNull();
    // Its run lock stays, naming a process that no longer runs: the next run takes it over.
    await access(path.join(target, RUN_LOCK_FILE));

    // alpha was fetched whole and beta half: neither is in place, and the lock is as it was.
    expect(await readTree(target)).toEqual(installed(V1));
    expect(await readFile(path.join(target, LOCK_FILE), "utf8")).toBe(lock);

    stage.hold = undefined;
    stage.release?.();
    expect(await runCli(server.url, target).exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V2));
    await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
    await expect(access(path.join(target, RUN_LOCK_FILE))).rejects.toThrow();
  });

  it("leaves no copy of the lock beside it when killed as it puts the lock in place", {
    timeout: 60_000,
  }, async () => {
    expect(await runCli(server.url, target).exited).toBe(0);
    stage.catalog = V2;
    // The run kills itself the moment it renames a new lock over the old one: its text is written.
    const killAtLock = [
      'import fs from "node:fs";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const rename = fs.promises.rename;",
      `fs.promises.rename = (from, to) => String(to).endsWith("/${LOCK_FILE}") ? process.kill(process.pid, "SIGKILL") : rename(from, to);`,
      "syncBuiltinESMExports();",
    ].join("\n");
    const killed = runCli(server.url, target, [
      "--import",
      `data:text/javascript,${encodeURIComponent(killAtLock)}`,
    ]);
    expect(await killed.exited).toBeNull();
    expect(await runCli(server.url, target).exited).toBe(0);
    expect((await readdir(target)).sort()).toEqual([LOCK_FILE, ...Object.keys(V2)].sort());
  });

  // Stopped between the two renames of a swap, the old copy, moved aside, went with the staging folder:
  // the skill was missing until the next run. A stop then now puts it back. Stopped while the rename that
  // moves it aside was still in flight (Node runs an async rename on another thread, and the stop's
  // handler on this one), the handler found nothing to put back, then the rename landed and the old copy
  // went with the staging folder: that rename is now synchronous, so no handler runs while it is in flight.
  it("puts back a copy it moved aside to replace when stopped by SIGTERM as it moves it", {
    timeout: 60_000,
  }, async () => {
    expect(await runCli(server.url, target).exited).toBe(0);
    stage.catalog = V2;
    const stopAtMoveAside = [
      'import fs from "node:fs";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const { rename } = fs.promises;",
      "const { readdirSync, renameSync } = fs;",
      "const aside = (to) => /[/]old-alpha-/.test(String(to));",
      // Once stopped, no rename goes on (the timer keeps the process up until the signal is handled).
      "let stopped = false;",
      "const stop = () => { stopped = true; process.kill(process.pid, 'SIGTERM'); return new Promise(() => setInterval(() => {}, 1000)); };",
      "let inFlight;",
      // An async move aside is still in flight as the handler runs: it lands once the handler has put
      // back what it found, as it lists the staging folder to clear it.
      "fs.promises.rename = (from, to) => { if (stopped) return stop(); if (!aside(to)) return rename(from, to); inFlight = () => renameSync(from, to); return stop(); };",
      "fs.readdirSync = (...args) => { inFlight?.(); inFlight = undefined; return readdirSync(...args); };",
      // A synchronous one is done before any handler runs: the stop lands right after it.
      "fs.renameSync = (from, to) => { renameSync(from, to); if (aside(to)) { stopped = true; process.kill(process.pid, 'SIGTERM'); } };",
      "syncBuiltinESMExports();",
    ].join("\n");
    const stopped = runCli(server.url, target, [
      "--import",
      `data:text/javascript,${encodeURIComponent(stopAtMoveAside)}`,
    ]);
    expect(await stopped.exited).toBeNull();
    expect(stopped.stderr()).toContain("stopped by SIGTERM");
    expect(await readTree(target)).toEqual(installed(V1));
    expect(await runCli(server.url, target).exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V2));
  });

  // Windows will not rename a folder holding a file another program has open, Linux one marked immutable
  // (EPERM) or a mount point (EBUSY): the line quoted only "EPERM: operation not permitted, rename …",
  // which says nothing of what to do, and then said the Windows advice on every system.
  // Windows answers EACCES too, for a virus scanner or the search indexer holding a file (graceful-fs
  // retries that there): the line quoted the system's words alone.
  it.each([
    {
      platform: "win32",
      refused: "EPERM",
      alpha:
        "; a program may hold a file in it open (an editor, a virus scanner): close it, then run sync again",
      gamma:
        "; a program may hold a file in it open (an editor, a virus scanner): close it, then run sync again",
    },
    {
      platform: "win32",
      refused: "EACCES",
      alpha:
        "; a program may hold a file in it open (an editor, a virus scanner), or its security settings may not let you change it: close it or give yourself that right, then run sync again",
      gamma:
        "; a program may hold a file in it open (an editor, a virus scanner): close it, then run sync again",
    },
    {
      platform: "linux",
      refused: "EPERM",
      alpha:
        "; it or the folder it is in may be immutable (lsattr shows it, or ls -lO on macOS), or another user's in a folder with the sticky bit: change that, then run sync again",
      gamma: "; it may be a mount point: unmount it, then run sync again",
    },
  ])(
    "says what to do on $platform when the system will not move a skill's folder ($refused)",
    {
      timeout: 60_000,
    },
    async (advice) => {
      expect(await runCli(server.url, target).exited).toBe(0);
      const { gamma: _, ...withoutGamma } = V2;
      stage.catalog = withoutGamma;
      const refusedMoves = [
        'import fs from "node:fs";',
        'import { syncBuiltinESMExports } from "node:module";',
        `Object.defineProperty(process, "platform", { value: ${JSON.stringify(advice.platform)} });`,
        "const { renameSync } = fs;",
        "const refused = (code, from, to) => Object.assign(new Error(code + ': refused, rename ' + from + ' -> ' + to), { code, syscall: 'rename' });",
        `fs.renameSync = (from, to) => { if (/[/]old-alpha-/.test(to)) throw refused(${JSON.stringify(advice.refused)}, from, to); if (/[/]removed-gamma-/.test(to)) throw refused('EBUSY', from, to); return renameSync(from, to); };`,
        "syncBuiltinESMExports();",
      ].join("\n");
      const run = runCli(server.url, target, [
        "--import",
        `data:text/javascript,${encodeURIComponent(refusedMoves)}`,
      ]);
      expect(await run.exited).toBe(1);
      const lines = run.stderr().split("\n");
      const said = (start: string) => lines.find((line) => line.startsWith(start)) ?? "";
      const alpha = said(`alpha: skipped: cannot be put in place: ${advice.refused}: refused, rename `);
      expect(alpha).toMatch(/[/]old-alpha-\S+; /);
      expect(alpha.endsWith(advice.alpha)).toBe(true);
      const gamma = said("gamma: skipped: cannot be removed: EBUSY: refused, rename ");
      expect(gamma).toMatch(/[/]removed-gamma-\S+; /);
      expect(gamma.endsWith(advice.gamma)).toBe(true);
      expect(await readTree(target)).toEqual(
        installed({ ...withoutGamma, alpha: V1.alpha ?? {}, gamma: V1.gamma ?? {} }),
      );
      expect(await runCli(server.url, target).exited).toBe(0);
      expect(await readTree(target)).toEqual(installed(withoutGamma));
    },
  );

  // A lock file another program holds open (Windows), or one marked immutable, cannot be replaced: the run
  // stopped with only "cannot sync into …: EPERM: operation not permitted, rename …", saying nothing to do.
  it.each([
    {
      platform: "win32",
      advice: "; a program may hold it open (an editor, a virus scanner): close it, then run sync again",
    },
    {
      platform: "linux",
      advice:
        "; it or the folder it is in may be immutable (lsattr shows it, or ls -lO on macOS), or another user's in a folder with the sticky bit: change that, then run sync again",
    },
  ])(
    "says what to do on $platform when the system will not replace the lock file",
    {
      timeout: 60_000,
    },
    async ({ platform, advice }) => {
      expect(await runCli(server.url, target).exited).toBe(0);
      stage.catalog = V2;
      const lockRefused = [
        'import fs from "node:fs";',
        'import { syncBuiltinESMExports } from "node:module";',
        `Object.defineProperty(process, "platform", { value: ${JSON.stringify(platform)} });`,
        "const { rename } = fs.promises;",
        "const refused = (from, to) => Object.assign(new Error('EPERM: refused, rename ' + from + ' -> ' + to), { code: 'EPERM', syscall: 'rename' });",
        `fs.promises.rename = (from, to) => String(to).endsWith(${JSON.stringify(LOCK_FILE)}) ? Promise.reject(refused(from, to)) : rename(from, to);`,
        "syncBuiltinESMExports();",
      ].join("\n");
      const run = runCli(server.url, target, [
        "--import",
        `data:text/javascript,${encodeURIComponent(lockRefused)}`,
      ]);
      expect(await run.exited).toBe(2);
      const said =
        run
          .stderr()
          .split("\n")
          .find((line) => line.startsWith("skills-mcp sync: ")) ?? "";
      expect(said).toContain(
        `skills-mcp sync: cannot sync into ${target}: cannot replace its lock file ${LOCK_FILE}: EPERM: refused, rename `,
      );
      expect(said.endsWith(advice)).toBe(true);
      // Refused as the lock claims the new copies, before any is put in place.
      expect(await readTree(target)).toEqual(installed(V1));
      expect(await runCli(server.url, target).exited).toBe(0);
      expect(await readTree(target)).toEqual(installed(V2));
    },
  );

  /**
   * Killed between the lock's claim and the swap, the folder holds the old copy while the lock names the
   * new one as well: the next run takes the folder for the old copy, not for a skill changed by hand.
   */
  it("takes a skill the lock claims an update of for whichever copy the folder holds", async () => {
    const newer = path.join(root.dir, "newer");
    await sync(server.url, target);
    const before = await readLockIn(target);
    stage.catalog = V2;
    await sync(server.url, newer);
    const after = await readLockIn(newer);
    const claim = (lock: Lock, previous: Lock): Lock => {
      const [source] = lock.sources;
      const [old] = previous.sources;
      const alpha = source?.skills.alpha;
      if (source === undefined || old === undefined || alpha === undefined) throw new Error("no lock");
      return {
        ...lock,
        sources: [{ ...old, skills: { ...old.skills, alpha: { ...alpha, previous: old.skills.alpha } } }],
      };
    };
    await writeFile(path.join(target, LOCK_FILE), JSON.stringify(claim(after, before)));

    // The swap did not happen: alpha is old, and is updated.
    const untouched = await sync(server.url, target);
    expect(untouched.lines.filter((line) => line.includes("skipped"))).toEqual([]);
    expect(untouched.counts).toMatchObject({ added: 1, updated: 2, skipped: 0 });
    expect(await readTree(target)).toEqual(installed(V2));

    // The swap happened: alpha is new already, and stays.
    stage.catalog = V1;
    await sync(server.url, target);
    stage.catalog = V2;
    await cp(path.join(newer, "alpha"), path.join(target, "alpha"), { recursive: true, force: true });
    const v1Lock = await readLockIn(target);
    await writeFile(path.join(target, LOCK_FILE), JSON.stringify(claim(after, v1Lock)));
    const swapped = await sync(server.url, target);
    expect(swapped.steps.find((step) => step.name === "alpha")?.kind).toBe("keep");
    expect(swapped.counts.skipped).toBe(0);
  });
});

describe("a skill changed here while a sync fetches", () => {
  // A folder the plan found holding the server's copy, with no lock recording it, is read again before the
  // lock records it as sync's: one edited meanwhile stays the user's.
  it("is not adopted when it no longer holds the server's copy, and the change is kept", async () => {
    await sync(server.url, target);
    await rm(path.join(target, LOCK_FILE));
    await rm(path.join(target, "beta"), { recursive: true });
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const running = sync(server.url, target);
    await held;
    await writeFile(path.join(target, "alpha/notes.md"), "my own notes\n");
    stage.release?.();
    const report = await running;

    expect(report.steps.map((step) => `${step.kind} ${step.name}`)).toEqual([
      "adopt alpha",
      "add beta",
      "adopt gamma",
    ]);
    expect(report.counts).toMatchObject({ added: 1, adopted: 1, skipped: 1 });
    expect(report.lines).toContain(
      "alpha: skipped: changed here while sync ran (its files differ from the server's copy): left alone, not adopted",
    );
    expect(Object.keys((await readLockIn(target)).sources[0]?.skills ?? {})).toEqual(["beta", "gamma"]);
    expect((await readTree(target))["alpha/notes.md"]).toBe("my own notes\n");
    const next = await sync(server.url, target);
    expect(next.lines).toContainEqual(
      expect.stringMatching(/^alpha: skipped: a folder or file of that name that sync did not install/),
    );
  });

  // Regression: the plan read each copy before the skills were fetched (hours, for a large catalog); a file
  // edited or added meanwhile was deleted with the old copy the update replaced, or the skill removed.
  it("is left alone, neither updated nor removed, and the other skills synced", async () => {
    await sync(server.url, target);
    const { gamma: _, ...withoutGamma } = V2;
    stage.catalog = withoutGamma;
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const running = sync(server.url, target);
    await held;
    await writeFile(path.join(target, "alpha/notes.md"), "my own notes\n");
    await writeFile(path.join(target, "gamma/mine.md"), "mine\n");
    stage.release?.();
    const report = await running;

    expect(report.counts).toMatchObject({ added: 1, updated: 1, removed: 0, skipped: 2 });
    expect(report.lines).toContainEqual(
      expect.stringMatching(
        /^alpha: skipped: cannot be put in place: changed here while sync ran \(its files differ from what sync wrote\): left alone/,
      ),
    );
    expect(report.lines).toContainEqual(
      expect.stringMatching(/^gamma: skipped: cannot be removed: changed here while sync ran/),
    );
    expect(await readTree(target)).toEqual({
      ...installed({ ...V2, alpha: { ...V1.alpha, "notes.md": "my own notes\n" } }),
      "gamma/mine.md": "mine\n",
    });
    const next = await sync(server.url, target);
    expect(next.lines).toContainEqual(
      expect.stringMatching(/^alpha: skipped: changed here since sync installed it/),
    );
    expect(next.lines).toContainEqual(
      expect.stringMatching(/^gamma: skipped: no longer served, but changed here/),
    );
    expect((await readTree(target))["gamma/mine.md"]).toBe("mine\n");
  });
});

describe("a sync stopped before it put its skills in place", () => {
  /** A run stopped by `signal` once alpha is staged (its line is out) and beta's notes are being read. */
  async function stoppedRun(signal: NodeJS.Signals) {
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const run = runCli(server.url, target);
    await held;
    await vi.waitFor(() => expect(run.stderr()).toContain("alpha: to add"), { timeout: 20_000 });
    run.child.kill(signal);
    await run.exited;
    stage.hold = undefined;
    stage.release?.();
    stage.reads.length = 0;
  }

  // Every skill it had fetched and verified was dropped: the next run read them all from the server again.
  it.each(["SIGTERM", "SIGKILL"] as const)(
    "leaves the next run to take the files it verified (%s) instead of fetching them",
    { timeout: 60_000 },
    async (signal) => {
      await stoppedRun(signal);
      const next = await sync(server.url, target);
      expect(next.counts).toMatchObject({ added: 3, skipped: 0 });
      expect(await readTree(target)).toEqual(installed(V1));
      // alpha's SKILL.md is read again, as only the server's read checks its frontmatter; its notes are not.
      expect(stage.reads).toContain("skill://team/alpha/SKILL.md");
      expect(stage.reads).not.toContain("skill://team/alpha/notes.md");
      expect(stage.reads).toContain("skill://team/beta/notes.md");
      expect(next.lines).toContain(
        "[1/3] alpha: to add: 1 file fetched and verified, 1 file verified by an earlier run reused",
      );
      await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
    },
  );

  // Kept by digest as it staged them, a run took the next skill's file of the same bytes from there, and
  // said it was verified by an earlier run.
  it("takes from there only what an earlier run kept, not what this one keeps", async () => {
    // Over half the 16 MiB that skills being fetched may hold at once: fetched one after the other.
    const notes = "shared notes\n".repeat(700_000);
    stage.catalog = {
      alpha: { "SKILL.md": skillMd("alpha", "First."), "notes.md": notes },
      beta: { "SKILL.md": skillMd("beta", "Second."), "notes.md": notes },
    };
    const run = await sync(server.url, target);
    expect(stage.reads).toEqual(
      expect.arrayContaining(["skill://team/alpha/notes.md", "skill://team/beta/notes.md"]),
    );
    expect(run.lines.filter((line) => line.includes("reused"))).toEqual([]);
  });

  // Regression: the other server's run removed them (a run kept only the files it might fetch itself, and
  // one that put its skills in place removed the staging folder whole): the next run fetched them again.
  it("keeps them through a sync from another server into the folder", { timeout: 60_000 }, async () => {
    await stoppedRun("SIGTERM");
    const other = await tempFolder();
    await writeTree(other.dir, { "ops/zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs.") });
    const second = await serveCatalog(other.dir);
    try {
      // A run that installs, then one with nothing to change: neither touches the first server's files.
      expect((await sync(second.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
      expect((await sync(second.url, target)).counts).toMatchObject({ unchanged: 1, skipped: 0 });
    } finally {
      await second.close();
      await other.remove();
    }
    const next = await sync(server.url, target);
    expect(next.counts).toMatchObject({ added: 3, skipped: 0 });
    expect(stage.reads).not.toContain("skill://team/alpha/notes.md");
    expect(next.lines).toContain(
      "[1/3] alpha: to add: 1 file fetched and verified, 1 file verified by an earlier run reused",
    );
    expect(Object.keys(await readTree(target))).toContain("zip-logs/SKILL.md");
    await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
  });

  /** Makes the kept files' folder of runs from `url` look last used `days` ago. */
  async function lastUsed(url: string, days: number) {
    const when = new Date(Date.now() - days * 86_400_000);
    await utimes(path.join(target, STAGING_DIR, VERIFIED_DIR, keptFolderName(url)), when, when);
  }

  /** A run from a second server into the folder, with its lines. */
  async function syncFromAnother() {
    const other = await tempFolder();
    await writeTree(other.dir, { "ops/zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs.") });
    const second = await serveCatalog(other.dir);
    try {
      return await sync(second.url, target);
    } finally {
      await second.close();
      await other.remove();
    }
  }

  // Regression: a server never synced from again left its kept files in the folder for good.
  it("are removed by a run from another server once unused for KEPT_UNUSED_DAYS, saying so", {
    timeout: 60_000,
  }, async () => {
    await stoppedRun("SIGTERM");
    const verified = path.join(target, STAGING_DIR, VERIFIED_DIR);
    // A third server's, used a day short of the limit: it stays.
    const recent = "http://127.0.0.1:1/mcp";
    await mkdir(path.join(verified, keptFolderName(recent)));
    await writeFile(path.join(verified, keptFolderName(recent), "0".repeat(64)), "kept\n");
    await lastUsed(recent, KEPT_UNUSED_DAYS - 1);
    await lastUsed(server.url, KEPT_UNUSED_DAYS + 1);

    const other = await syncFromAnother();
    expect(other.counts).toMatchObject({ added: 1, skipped: 0 });
    expect(other.lines).toContain(
      `removed from ${verified} the files a stopped sync from another server kept, unused for ${KEPT_UNUSED_DAYS} days or more (a sync from there fetches them again)`,
    );
    expect(await readdir(verified)).toEqual([keptFolderName(recent)]);

    const next = await sync(server.url, target);
    expect(next.counts).toMatchObject({ added: 3, skipped: 0 });
    expect(stage.reads).toContain("skill://team/alpha/notes.md");
    expect(await readTree(target)).toEqual({ ...installed(V1), "zip-logs/SKILL.md": expect.any(String) });
  });

  it("count as used by every run from their server that fetches, even one that changes none of them", {
    timeout: 60_000,
  }, async () => {
    await stoppedRun("SIGTERM");
    await lastUsed(server.url, KEPT_UNUSED_DAYS + 1);
    // Stopped at the same point again: it reuses alpha's notes, and keeps nothing new.
    await stoppedRun("SIGTERM");
    const other = await syncFromAnother();
    expect(other.lines.filter((line) => line.startsWith("removed from"))).toEqual([]);
    const next = await sync(server.url, target);
    expect(stage.reads).not.toContain("skill://team/alpha/notes.md");
    expect(next.counts).toMatchObject({ added: 3, skipped: 0 });
  });

  it("trusts no file kept that no longer has the digest the server lists", { timeout: 60_000 }, async () => {
    await stoppedRun("SIGTERM");
    const notes = createHash("sha256").update("alpha notes v1\n").digest("hex");
    const kept = path.join(target, STAGING_DIR, VERIFIED_DIR, keptFolderName(server.url), notes);
    await access(kept);
    await writeFile(kept, "alpha notes forged\n");
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 3, skipped: 0 });
    expect(stage.reads).toContain("skill://team/alpha/notes.md");
    expect(await readTree(target)).toEqual(installed(V1));
  });

  it("reuses only what the server still lists: a file changed there since is fetched", {
    timeout: 60_000,
  }, async () => {
    await stoppedRun("SIGTERM");
    stage.catalog = { ...V1, alpha: { ...V1.alpha, "notes.md": "alpha notes v2\n" } };
    expect((await sync(server.url, target)).counts).toMatchObject({ added: 3, skipped: 0 });
    expect(stage.reads).toContain("skill://team/alpha/notes.md");
    expect(await readTree(target)).toEqual(installed(stage.catalog));
  });
});

describe("two syncs into one folder", () => {
  /** A sync run as a process, held on beta's notes: it has staged alpha and holds the folder's run lock. */
  async function heldRun() {
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const run = runCli(server.url, target);
    await held;
    return run;
  }

  // Regression: the second stopped at once (exit 2), so two editor sessions, or a cron job and a hook,
  // syncing at the same moment failed one of them for nothing.
  it("has the second wait for the first, saying so once, then sync", async () => {
    const first = await takeRunLock(target);
    if (!("release" in first)) throw new Error("the lock is not taken");
    const progress = recordedProgress();
    const second = sync(server.url, target, { progress });
    await vi.waitFor(() => expect(progress.lines).toHaveLength(1));
    expect(progress.lines).toEqual([
      `another sync (pid ${process.pid}) is installing into ${target}: waiting up to 60 seconds for it to finish`,
    ]);
    await first.release();
    expect((await second).counts).toMatchObject({ added: 3, skipped: 0 });
    expect(progress.lines.filter((line) => line.includes("waiting"))).toHaveLength(1);
    expect(await readTree(target)).toEqual(installed(V1));
  });

  it("has the second fail once its wait is over, naming the first and how to clear its lock", async () => {
    const first = await takeRunLock(target);
    if (!("release" in first)) throw new Error("the lock is not taken");
    try {
      await expect(sync(server.url, target, { lockWaitMs: 100 })).rejects.toThrow(
        `another sync (pid ${process.pid}) is still installing into ${target} after 0.1 seconds of waiting; run sync again once it is done (or give a longer --wait), or remove ${path.join(target, RUN_LOCK_FILE)} if it is gone`,
      );
      expect(await readdir(target)).toEqual([RUN_LOCK_FILE]);
    } finally {
      await first.release();
    }
  });

  // A sync stopped in another terminal (Ctrl-Z) holds the lock: the second said it was "still installing"
  // and to remove the lock "if it is gone", neither of which it is.
  it.runIf(existsSync("/proc/self/stat"))(
    "tells the second that the first is stopped, and how to resume it",
    async () => {
      const first = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      const pid = pidOf(first);
      try {
        await mkdir(target);
        const stat = () => {
          const line = readFileSync(`/proc/${pid}/stat`, "utf8");
          return line.slice(line.lastIndexOf(")") + 2).split(" ");
        };
        const holder = {
          pid,
          startedAt: "2026-01-01T00:00:00Z",
          run: "first",
          host: hostname(),
          pidNamespace: readlinkSync("/proc/self/ns/pid"),
          boot: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
          start: stat()[19],
        };
        await writeFile(path.join(target, RUN_LOCK_FILE), `${JSON.stringify(holder)}\n`);
        first.kill("SIGSTOP");
        await vi.waitFor(() => expect(stat()[0]).toBe("T"));
        const progress = recordedProgress();
        await expect(sync(server.url, target, { progress, lockWaitMs: 100 })).rejects.toThrow(
          `another sync (pid ${pid}) holds the run lock of ${target} after 0.1 seconds of waiting but is stopped (Ctrl-Z, or SIGSTOP), so it installs nothing until resumed: resume it (fg in its terminal, or kill -CONT ${pid}) or end it, then run sync again`,
        );
        expect(progress.lines).toEqual([
          `another sync (pid ${pid}) is installing into ${target}: waiting up to 0.1 seconds for it to finish; it is stopped (Ctrl-Z, or SIGSTOP) and installs nothing until resumed: fg in its terminal, or kill -CONT ${pid}`,
        ]);
      } finally {
        first.kill("SIGKILL");
      }
    },
  );

  // Regression: a run whose lock another run had taken over (an older sync's takeover of a live lock, or
  // a lease run out while this one stood still) went on: it removed the other run's staged skills with
  // the staging folder, wrote the lock from its own plan, and on release removed the other run's lock.
  it("stops a run whose lock another took over before it writes, leaving that run's lock and files", async () => {
    stage.hold = "skill://team/beta/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const running = sync(server.url, target);
    await held;
    const lockFile = path.join(target, RUN_LOCK_FILE);
    const other = `${JSON.stringify({ pid: process.ppid, startedAt: "2026-01-01T00:00:00Z", run: "other" })}\n`;
    await writeFile(lockFile, other);
    const theirs = path.join(target, STAGING_DIR, "run-theirs");
    await mkdir(theirs);
    await writeFile(path.join(theirs, "staged.md"), "theirs\n");
    stage.release?.();
    await expect(running).rejects.toThrow(
      `another sync (pid ${process.ppid}) took over the run lock of ${target} while this sync ran, so both were installing there: this one stops without writing more and leaves the folder to it; run sync again once it is done`,
    );
    expect(await readFile(lockFile, "utf8")).toBe(other);
    expect(await readFile(path.join(theirs, "staged.md"), "utf8")).toBe("theirs\n");
    expect((await readdir(target)).sort()).toEqual([RUN_LOCK_FILE, STAGING_DIR].sort());
  });

  // Regression: a run checked its lock only before it claimed its skills, and went on putting every one in
  // place after another run took the lock over, both then moving skills in one folder.
  it("stops a run whose lock another takes over while it puts skills in place, before the next skill", {
    timeout: 60_000,
  }, async () => {
    expect(await runCli(server.url, target).exited).toBe(0);
    stage.catalog = V2;
    const other = `${JSON.stringify({ pid: process.pid, startedAt: "2026-01-01T00:00:00Z", run: "other" })}\n`;
    const takenOver = [
      'import fs from "node:fs";',
      'import path from "node:path";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const { renameSync, writeFileSync } = fs;",
      `fs.renameSync = (from, to) => { renameSync(from, to); if (/[/]old-alpha-/.test(to)) writeFileSync(path.join(path.dirname(from), ${JSON.stringify(RUN_LOCK_FILE)}), ${JSON.stringify(other)}); };`,
      "syncBuiltinESMExports();",
    ].join("\n");
    const run = runCli(server.url, target, [
      "--import",
      `data:text/javascript,${encodeURIComponent(takenOver)}`,
    ]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(
      `skills-mcp sync: another sync (pid ${process.pid}) took over the run lock of ${target} while this sync ran`,
    );
    // alpha was being put in place as the lock was taken: done; beta and delta are left to the other run.
    expect(await readTree(target)).toEqual(installed({ ...V1, alpha: V2.alpha ?? {} }));
    expect(await readFile(path.join(target, RUN_LOCK_FILE), "utf8")).toBe(other);
    await rm(path.join(target, RUN_LOCK_FILE));
    expect(await runCli(server.url, target).exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V2));
  });

  // The lock was checked before each skill, then its old copy read whole (a large skill takes a while),
  // then moved: a takeover landing during that read still had the skill moved by both runs.
  it("stops a run whose lock another takes over while it reads a copy it is about to replace", {
    timeout: 60_000,
  }, async () => {
    expect(await runCli(server.url, target).exited).toBe(0);
    stage.catalog = V2;
    const other = `${JSON.stringify({ pid: process.pid, startedAt: "2026-01-01T00:00:00Z", run: "other" })}\n`;
    const takenOver = [
      'import fs from "node:fs";',
      'import path from "node:path";',
      'import { syncBuiltinESMExports } from "node:module";',
      "const { renameSync, writeFileSync } = fs;",
      "const { readFile } = fs.promises;",
      "let swapping = false;",
      "fs.renameSync = (from, to) => { renameSync(from, to); if (/[/]old-alpha-/.test(to)) swapping = true; };",
      // The first read of beta's copy once alpha is swapped: the check before beta's move.
      `fs.promises.readFile = async (file, ...rest) => { const read = await readFile(file, ...rest); if (swapping && /[/]beta[/]/.test(String(file))) { swapping = false; writeFileSync(path.join(path.dirname(path.dirname(String(file))), ${JSON.stringify(RUN_LOCK_FILE)}), ${JSON.stringify(other)}); } return read; };`,
      "syncBuiltinESMExports();",
    ].join("\n");
    const run = runCli(server.url, target, [
      "--import",
      `data:text/javascript,${encodeURIComponent(takenOver)}`,
    ]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(
      `skills-mcp sync: another sync (pid ${process.pid}) took over the run lock of ${target} while this sync ran`,
    );
    expect(await readTree(target)).toEqual(installed({ ...V1, alpha: V2.alpha ?? {} }));
    expect(await readFile(path.join(target, RUN_LOCK_FILE), "utf8")).toBe(other);
  });

  it("leaves the lock and staged files of a run that took its lock over when stopped by SIGTERM", {
    timeout: 60_000,
  }, async () => {
    const first = await heldRun();
    const lockFile = path.join(target, RUN_LOCK_FILE);
    const other = `${JSON.stringify({ pid: process.pid, startedAt: "2026-01-01T00:00:00Z", run: "other" })}\n`;
    await writeFile(lockFile, other);
    const theirs = path.join(target, STAGING_DIR, "run-theirs");
    await mkdir(theirs);
    await writeFile(path.join(theirs, "staged.md"), "theirs\n");
    first.child.kill("SIGTERM");
    expect(await first.exited).toBeNull();
    expect(await readFile(lockFile, "utf8")).toBe(other);
    expect(await readFile(path.join(theirs, "staged.md"), "utf8")).toBe("theirs\n");
  });

  // A lock naming no process is no sync's (a sync creates its lock whole): waiting would not end it.
  it("stops at once at a lock file naming no process, saying so", async () => {
    await mkdir(target);
    const lockFile = path.join(target, RUN_LOCK_FILE);
    await writeFile(lockFile, "not a lock\n");
    const progress = recordedProgress();
    await expect(sync(server.url, target, { progress, lockWaitMs: 5_000 })).rejects.toThrow(
      `${lockFile} names no process, so no sync wrote it as it is: remove it if no sync is installing into ${target}`,
    );
    expect(progress.lines).toEqual([]);
  });

  it("stops the second at once with no wait, naming the first, and leaves the first to finish", {
    timeout: 60_000,
  }, async () => {
    const first = await heldRun();
    await expect(sync(server.url, target, { lockWaitMs: 0 })).rejects.toThrow(
      `another sync (pid ${first.child.pid}) is installing into ${target}; wait for it, or remove ${path.join(target, RUN_LOCK_FILE)} if it is gone`,
    );
    stage.release?.();
    expect(await first.exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V1));
    await expect(access(path.join(target, RUN_LOCK_FILE))).rejects.toThrow();
  });

  it("stops a second from another server too, and both servers' skills are there once each has run", {
    timeout: 60_000,
  }, async () => {
    const other = await tempFolder();
    await writeTree(other.dir, { "ops/zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs.") });
    const second = await serveCatalog(other.dir);
    try {
      const first = await heldRun();
      await expect(sync(second.url, target, { lockWaitMs: 0 })).rejects.toThrow(
        `another sync (pid ${first.child.pid}) is installing into ${target}`,
      );
      stage.release?.();
      expect(await first.exited).toBe(0);
      expect((await sync(second.url, target)).counts).toMatchObject({ added: 1, skipped: 0 });
      expect(await readTree(target)).toEqual({
        ...installed(V1),
        "zip-logs/SKILL.md": skillMd("zip-logs", "Zip the logs."),
      });
      expect((await sync(server.url, target)).counts).toMatchObject({ unchanged: 3, skipped: 0 });
    } finally {
      await second.close();
      await other.remove();
    }
  });

  // The kernel spares PID 1 a signal's default action: re-raised there, SIGTERM left the sync running
  // without its lock, so `docker stop` or Ctrl-C on the image's sync dropped the lock and went on.
  it.skipIf(!asPid1)(
    "ends on SIGTERM as a container's PID 1, its lock gone",
    {
      timeout: 60_000,
    },
    async () => {
      stage.hold = "skill://team/beta/notes.md";
      const held = new Promise<void>((resolve) => {
        stage.held = resolve;
      });
      const child = spawn(
        "unshare",
        ["--pid", "--fork", process.execPath, ...MAIN, "sync", server.url, "--to", target],
        {
          env: { ...process.env, NODE_OPTIONS: "" },
          stdio: "ignore",
        },
      );
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      await held;
      // The sync itself: unshare's child, PID 1 of its namespace.
      const children = await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8");
      process.kill(Number(children.trim()), "SIGTERM");
      await vi.waitFor(() => expect(access(path.join(target, RUN_LOCK_FILE))).rejects.toThrow());
      stage.release?.();
      expect(await exited).toBe(128 + constants.signals.SIGTERM);
      await expect(access(path.join(target, "alpha"))).rejects.toThrow();
    },
  );

  // Before it takes the lock (here: `--check`, which takes none, waiting on a server that does not answer)
  // nothing handled the signal, so as PID 1 it went on until the request gave up, 60 s later.
  it.skipIf(!asPid1)("ends on SIGTERM as a container's PID 1 while it waits for the server", async () => {
    let asked: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const silent = http.createServer(() => asked());
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/mcp`;
    const child = spawn(
      "unshare",
      ["--pid", "--fork", "--kill-child", process.execPath, ...MAIN, "sync", url, "--to", target, "--check"],
      { env: { ...process.env, NODE_OPTIONS: "" }, stdio: "ignore" },
    );
    let exited: number | null | undefined;
    child.on("close", (code) => {
      exited = code;
    });
    try {
      await waiting;
      const children = await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8");
      process.kill(Number(children.trim()), "SIGTERM");
      await vi.waitFor(() => expect(exited).toBe(128 + constants.signals.SIGTERM), { timeout: 10_000 });
    } finally {
      child.kill("SIGKILL");
      silent.closeAllConnections();
      silent.close();
    }
  });

  // A run stopped before it staged a skill left the folders it made for its lock (`--to` a new folder,
  // `--client claude --project`'s .claude/skills) there, empty, where one that failed removed them.
  it("removes the folders it made when stopped before it staged a skill", { timeout: 60_000 }, async () => {
    stage.catalog = { alpha: V1.alpha ?? {} };
    stage.hold = "skill://team/alpha/notes.md";
    const held = new Promise<void>((resolve) => {
      stage.held = resolve;
    });
    const run = runCli(server.url, path.join(target, "new", "skills"));
    await held;
    run.child.kill("SIGINT");
    expect(await run.exited).toBeNull();
    expect(run.stderr()).toContain("stopped by SIGINT");
    await expect(access(target)).rejects.toThrow();
  });

  // Its progress went to a stream whose reader was gone (`sync … 2>&1 | head -3`, a terminal closed under a
  // job that outlives its shell): the next line's write failed (EPIPE, EIO), and the unhandled error
  // ended the process as SIGKILL would, its lock and staged skills left there and nothing installed.
  it("finishes when what reads its progress is gone", { timeout: 60_000 }, async () => {
    const first = await heldRun();
    await vi.waitFor(() => expect(first.stderr()).toContain("alpha: to add"), { timeout: 20_000 });
    first.child.stderr?.destroy();
    stage.hold = undefined;
    stage.release?.();
    expect(await first.exited).toBe(0);
    expect(await readTree(target)).toEqual(installed(V1));
    expect((await readdir(target)).sort()).toEqual([LOCK_FILE, ...Object.keys(V1)].sort());
  });

  // SIGHUP (the terminal closed, an ssh session dropped) ended the run as SIGKILL does: its lock stayed,
  // and the skills it had staged.
  it.each(["SIGTERM", "SIGHUP"] as const)(
    "lets the next run in when the first is stopped with %s",
    {
      timeout: 60_000,
    },
    async (signal) => {
      const first = await heldRun();
      // alpha, first in the plan's order, is staged: its line is out.
      await vi.waitFor(() => expect(first.stderr()).toContain("alpha: to add"), { timeout: 20_000 });
      first.child.kill(signal);
      expect(await first.exited).toBeNull();
      expect(first.child.signalCode).toBe(signal);
      // It said nothing: the lines before said "fetched and verified" of skills the stop left out.
      expect(first.stderr()).toContain(
        `skills-mcp sync: stopped by ${signal}: each skill in ${target} is as it was or as the server serves it; the skills fetched are not put in place, but the files they verified are kept for the next run: run sync again\n`,
      );
      await expect(access(path.join(target, RUN_LOCK_FILE))).rejects.toThrow();
      // Nor does it leave the skills it had fetched, staged beside the folder: only the files verified.
      expect(await readdir(path.join(target, STAGING_DIR))).toEqual(["verified"]);
      expect(await readdir(target)).toEqual([STAGING_DIR]);
      stage.hold = undefined;
      stage.release?.();
      expect((await sync(server.url, target)).counts).toMatchObject({ added: 3, skipped: 0 });
      await expect(access(path.join(target, STAGING_DIR))).rejects.toThrow();
    },
  );
});
