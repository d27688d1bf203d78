/**
 * A system whose table of open files is full (ENFILE): another program's doing, not this process's limit
 * (EMFILE) nor the server's. The table cannot be filled here without filling it for every process of the
 * machine, so the system calls that meet it are made to fail as they would.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { afterEach, expect, it, onTestFinished, vi } from "vitest";
import { SyncError } from "../../src/sync/options.js";
import { skillMd, writeTree } from "../helpers/skill-tree.js";
import { serveCatalog, sync, tempFolder } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

function fileTableFull(syscall: string, where: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENFILE: file table overflow, ${syscall} '${where}'`), {
    code: "ENFILE",
    errno: -23,
    syscall,
    path: where,
  });
}

async function served(): Promise<{ readonly url: string; readonly target: string }> {
  const root = await tempFolder();
  onTestFinished(() => root.remove());
  const skills = path.join(root.dir, "skills");
  await writeTree(skills, {
    "team/write-docs/SKILL.md": skillMd("write-docs", "Write documentation pages."),
    "team/deploy-app/SKILL.md": skillMd("deploy-app", "Deploy the application."),
  });
  const server = await serveCatalog(skills);
  onTestFinished(() => server.close());
  return { url: server.url, target: path.join(root.dir, "target") };
}

// It said `cannot sync into <folder>: ENFILE: file table overflow, open '<folder>/.skills-mcp-staging/run-…/lock-….tmp'`:
// a file the user never named, and nothing on whose the limit is or what to do.
it("says the system's table of open files is full, and what to do, when the lock file cannot be written", async () => {
  const { url, target } = await served();
  const { writeFile } = fs.promises;
  vi.spyOn(fs.promises, "writeFile").mockImplementation(async (...args: Parameters<typeof writeFile>) => {
    const [file] = args;
    if (typeof file === "string" && /[/\\]lock-[^/\\]*\.tmp$/.test(file)) throw fileTableFull("open", file);
    return writeFile(...args);
  });
  syncBuiltinESMExports();

  const failed = await sync(url, target).catch((error: unknown) => error);

  expect(failed).toBeInstanceOf(SyncError);
  expect((failed as Error).message).toBe(
    `cannot sync into ${target}: the system has too many files open, this process's and other programs' (ENFILE); each skill there is as it was or as the server serves it: close some programs (or raise the system's limit on open files, fs.file-max), then run sync again`,
  );
});

// Its connections failing with ENFILE, it said "the server stopped answering", sending the user to a server that was fine.
it("says the system, not the server, has too many files open when its connections fail so", async () => {
  const { url, target } = await served();
  // The listing goes through; the reads of skills' files fail, and so does the question whether the
  // server still answers (skills/get).
  failFetches("ENFILE", (body) => /"(resources\/read|skills\/get)"/.test(body));

  const report = await sync(url, target);

  expect(report.counts.skipped).toBe(2);
  const line = report.lines.find((text) => text.includes("more skill"));
  expect(line).toMatch(
    /^the system has too many files open, not the server \(.*ENFILE.*\): 1 more skill not fetched; close some programs \(or raise the system's limit on open files, fs\.file-max\) and run sync again$/,
  );
});

/** Makes fetch fail for want of a file descriptor (`code`) on each request whose body `matches`. */
function failFetches(code: "EMFILE" | "ENFILE", matches: (body: string) => boolean): void {
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    if (typeof init?.body === "string" && matches(init.body)) {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error(`connect ${code} 127.0.0.1 - Local (undefined:undefined)`), {
          code,
          syscall: "connect",
        }),
      });
    }
    return realFetch(input, init);
  });
}

// Under a low `ulimit -n` the first connection failed so, and sync said "cannot connect to <server>:
// … connect EMFILE …", sending the user to look at the network and the server.
it.each([
  [
    "EMFILE",
    "this process has too many files open, not the server: raise its limit on open files (ulimit -n, to 1024 or more), then run sync again",
  ],
  [
    "ENFILE",
    "the system has too many files open, not the server: close some programs (or raise the system's limit on open files, fs.file-max), then run sync again",
  ],
] as const)("says %s at the first connection is this machine's, not the server's", async (code, said) => {
  const { url, target } = await served();
  failFetches(code, () => true);

  const failed = await sync(url, target).catch((error: unknown) => error);

  expect(failed).toBeInstanceOf(SyncError);
  expect((failed as Error).message).toMatch(new RegExp(`^cannot connect to ${url}: .*${code}.*; `));
  expect((failed as Error).message.endsWith(`; ${said}`)).toBe(true);
});

it("says EMFILE at the listing is this process's, not the server's", async () => {
  const { url, target } = await served();
  failFetches("EMFILE", (body) => body.includes('"skills/list"'));

  const failed = await sync(url, target).catch((error: unknown) => error);

  expect(failed).toBeInstanceOf(SyncError);
  expect((failed as Error).message).toMatch(
    new RegExp(
      `^cannot list the skills of ${url}: .*EMFILE.*; this process has too many files open, not the server: raise its limit on open files \\(ulimit -n, to 1024 or more\\), then run sync again$`,
    ),
  );
});
