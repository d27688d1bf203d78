/**
 * A run releasing the run lock as another takes it over: the release read the lock, then removed it. A
 * takeover landing between the two lost its lock to the release, and a third run could then get in. And
 * one releasing it while another run has the turn to remove it, with no file descriptor to spare.
 */
import fs, { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { devNull, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, onTestFinished, vi } from "vitest";
import { RUN_LOCK_FILE, takeRunLock } from "../../src/sync/run-lock.js";
import { takeTurn } from "../../src/sync/takeover.js";

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

/**
 * A process whose table of open files is full but for the files the run set aside (SpareFiles), from
 * now on: each file opened in `folder` needs a free one, and whatever the process runs at its next turn
 * of the event loop takes every one given back, as fetch's shared pool did with the sockets it connected
 * for the reads a closed connection aborted. Played, not made: the real table is left alone.
 */
function fillFileTable(folder: string): void {
  let free = 0;
  const { rdev } = fs.statSync(devNull);
  const emfile = (where: string) =>
    Object.assign(new Error(`EMFILE: too many open files, open '${where}'`), {
      code: "EMFILE",
      errno: -24,
      syscall: "open",
      path: where,
    });
  const inFolder = (where: unknown) => typeof where === "string" && where.startsWith(folder);
  const { openSync, closeSync, readFileSync, writeFileSync } = fs;
  vi.spyOn(fs, "openSync").mockImplementation((...args: Parameters<typeof openSync>) => {
    if (args[0] !== devNull) return openSync(...args);
    if (free === 0) throw emfile(devNull);
    free -= 1;
    return openSync(...args);
  });
  vi.spyOn(fs, "closeSync").mockImplementation((fd: number) => {
    const spare = fs.fstatSync(fd).rdev === rdev;
    closeSync(fd);
    if (!spare) return;
    free += 1;
    setImmediate(() => {
      free = 0;
    });
  });
  vi.spyOn(fs, "readFileSync").mockImplementation((...args: Parameters<typeof readFileSync>) => {
    if (inFolder(args[0]) && free === 0) throw emfile(String(args[0]));
    return readFileSync(...args);
  });
  vi.spyOn(fs, "writeFileSync").mockImplementation((...args: Parameters<typeof writeFileSync>) => {
    if (inFolder(args[0]) && free === 0) throw emfile(String(args[0]));
    writeFileSync(...args);
  });
  // An asynchronous open is made on another thread, after the process's turn: the files are taken by then.
  const { readFile, writeFile } = fs.promises;
  vi.spyOn(fs.promises, "readFile").mockImplementation(async (...args: Parameters<typeof readFile>) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (inFolder(args[0]) && free === 0) throw emfile(String(args[0]));
    return readFile(...args);
  });
  vi.spyOn(fs.promises, "writeFile").mockImplementation(async (...args: Parameters<typeof writeFile>) => {
    await new Promise((resolve) => setImmediate(resolve));
    if (inFolder(args[0]) && free === 0) throw emfile(String(args[0]));
    return writeFile(...args);
  });
  syncBuiltinESMExports();
}

// Under a low `ulimit -n`, a run that released its lock while another run had the turn to remove it (one
// taking a stale lock over, or a stop) gave back the files it had set aside, waited for the turn, and by
// then had none left to take the turn or read the lock with: the lock stayed, and the next run waited for
// a sync that was gone, then stopped, saying to remove the lock by hand.
it("removes its lock when another run had the turn as it released it, under a full table of open files", async () => {
  const file = path.join(folder, RUN_LOCK_FILE);
  const lock = await takeRunLock(folder);
  if (!("release" in lock)) throw new Error("the lock is not taken");
  const leave = takeTurn(file, await readFile(file, "utf8"));
  if (leave === undefined) throw new Error("no turn taken");
  fillFileTable(folder);

  // Its first try at the turn, before its first wait, finds the other run's.
  const releasing = lock.release();
  leave();
  await releasing;

  expect(existsSync(file)).toBe(false);
});

// Under a low `ulimit -n`, the lock's refresh could not read it (EMFILE), and skipped its touch without a
// word: past the lease (2 minutes), a sync in another container of the machine took the live lock over.
it("keeps refreshing its lock under a full table of open files", async () => {
  const file = path.join(folder, RUN_LOCK_FILE);
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const lock = await takeRunLock(folder);
  if (!("release" in lock)) throw new Error("the lock is not taken");
  const old = new Date("2000-01-01T00:00:00Z");
  fs.utimesSync(file, old, old);
  fillFileTable(folder);

  vi.advanceTimersToNextTimer();
  // Whatever the refresh does in the turns after its own is done by then.
  await new Promise((resolve) => setTimeout(resolve, 100));

  expect(fs.statSync(file).mtimeMs).toBeGreaterThan(old.getTime());
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await lock.release();
});
