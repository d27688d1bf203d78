/**
 * A run releasing the run lock as another takes it over: the release read the lock, then removed it. A
 * takeover landing between the two lost its lock to the release, and a third run could then get in.
 */
import fs, { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { RUN_LOCK_FILE, takeRunLock } from "../../src/sync/run-lock.js";

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "skills-mcp-run-lock-release-"));
});

afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await rm(folder, { recursive: true, force: true });
});

it("leaves a run that takes the lock as another run releases it holding a lock that is there", async () => {
  const file = path.join(folder, RUN_LOCK_FILE);
  const first = await takeRunLock(folder);
  if (!("release" in first)) throw new Error("the lock is not taken");
  let second: Awaited<ReturnType<typeof takeRunLock>> | undefined;
  let taking = false;
  // The first read of the lock as it is released lets a second run of this process take the lock before
  // it returns: the moment between the release's read and its removal. Every module shares node:fs.
  const { readFile } = fs.promises;
  vi.spyOn(fs.promises, "readFile").mockImplementation(async (...args: Parameters<typeof readFile>) => {
    const read = await readFile(...args);
    if (!taking && args[0] === file) {
      taking = true;
      second = await takeRunLock(folder);
    }
    return read;
  });
  syncBuiltinESMExports();
  await first.release();
  if (second === undefined) throw new Error("no second run took part");
  // Either the second run waited (the first still held the lock), or it holds a lock that is still there.
  expect(existsSync(file)).toBe("release" in second);
  if ("release" in second) await second.release();
});
