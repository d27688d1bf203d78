/**
 * The run lock of a sync's target folder: one run installs at a time, and a lock left by a run that no
 * longer runs is taken over, by one of the runs that find it, never by two.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUN_LOCK_FILE } from "../../src/sync/index.js";
import { type RunLock, takeRunLock } from "../../src/sync/run-lock.js";

/** A process id no process has: Linux ids stop at 2^22. */
const DEAD_PID = 2 ** 30;

describe("the run lock", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "run-lock-"));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("is taken over from a run that is gone by exactly one of the runs that find it at once", async () => {
    for (let round = 0; round < 100; round++) {
      const file = path.join(folder, RUN_LOCK_FILE);
      await writeFile(file, `${JSON.stringify({ pid: DEAD_PID, startedAt: "2026-01-01T00:00:00Z" })}\n`);
      const results = await Promise.all(Array.from({ length: 16 }, () => takeRunLock(folder)));
      const taken = results.filter((result): result is RunLock => "release" in result);
      expect(taken, `round ${round}`).toHaveLength(1);
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ pid: process.pid });
      expect(await readdir(folder)).toEqual([RUN_LOCK_FILE]);
      await Promise.all(taken.map((lock) => lock.release()));
    }
  });
});
