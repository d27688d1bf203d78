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
  let second: ReturnType<typeof takeRunLock> | undefined;
  // The first read of the lock as it is released starts a second run of this process taking the lock: the
  // moment between the release's read and its removal. The release reads and removes it synchronously (a
  // run given back its spare files must not turn the event loop meanwhile), so what the second run does
  // lands after the removal, as a run of another process would, which the release's turn keeps out too.
  // Every module shares node:fs.
  const { readFileSync } = fs;
  vi.spyOn(fs, "readFileSync").mockImplementation((...args: Parameters<typeof readFileSync>) => {
    const read = readFileSync(...args);
    if (second === undefined && args[0] === file) second = takeRunLock(folder);
    return read;
  });
  syncBuiltinESMExports();
  await first.release();
  if (second === undefined) throw new Error("no second run took part");
  const taken = await second;
  // Either the second run waited (the first still held the lock), or it holds a lock that is still there.
  expect(existsSync(file)).toBe("release" in taken);
  if ("release" in taken) await taken.release();
});
