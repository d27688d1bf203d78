/**
 * A run releasing the run lock as another takes it over: the release reads the lock, then removes it. A
 * takeover landing between the two lost its lock to the release, and then installed beside a third run.
 * Each read of the run lock can be made to let another run go on before it returns.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { RUN_LOCK_FILE } from "../../src/sync/index.js";
import { takeRunLock } from "../../src/sync/run-lock.js";

const hook = vi.hoisted(() => ({ file: "", afterRead: undefined as (() => Promise<unknown>) | undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const readFile = async (...args: Parameters<typeof actual.readFile>) => {
    const read = await actual.readFile(...args);
    const after = hook.afterRead;
    if (after !== undefined && args[0] === hook.file) {
      hook.afterRead = undefined;
      await after();
    }
    return read;
  };
  return { ...actual, readFile };
});

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "skills-mcp-run-lock-release-"));
  hook.file = path.join(folder, RUN_LOCK_FILE);
});

afterEach(async () => {
  hook.afterRead = undefined;
  await rm(folder, { recursive: true, force: true });
});

it("leaves a run that takes the lock as another run releases it holding a lock that is there", async () => {
  const first = await takeRunLock(folder);
  if (!("release" in first)) throw new Error("the lock is not taken");
  let second: Awaited<ReturnType<typeof takeRunLock>> | undefined;
  hook.afterRead = async () => {
    second = await takeRunLock(folder);
  };
  await first.release();
  if (second === undefined) throw new Error("no second run took part");
  // Either the second run waited (the first still held it), or it holds a lock that is still there.
  expect(existsSync(hook.file)).toBe("release" in second);
  if ("release" in second) await second.release();
});
