/**
 * A run stopped (SIGTERM, Ctrl-C) removes its run lock as it ends, and only its own: where a sync in
 * another container took the lock over (this one having stood still past the lease), that sync keeps it,
 * also when it takes it over while the stop's handler is removing it. The handler read the lock, then
 * removed it: a takeover landing between the two lost its lock, and a third run could then get in.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RUN_LOCK_FILE } from "../../src/sync/run-lock.js";
import { builtModule } from "../helpers/built-scripts.js";
import { tempFolder } from "./helpers.js";

const RUN_LOCK = builtModule("src/sync/run-lock.ts");

/** A sync of another container takes the lock over: it prints whether it did. */
const TAKER = `
const { takeRunLock } = await import(${JSON.stringify(RUN_LOCK)});
const taken = await takeRunLock(process.argv[2]);
process.stdout.write("release" in taken ? "taken" : "held");
`;

/**
 * Holds the run lock as a sync of another container of this machine (another host name), left untouched
 * past the lease (as if it stood still), and stops itself with SIGTERM. With "before", the taker runs
 * before the stop; with "during", as the stop's handler reads the lock. It prints what the taker printed.
 */
const HOLDER = `
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
os.hostname = () => "3f2a9c1d7e4b";
syncBuiltinESMExports();
const { takeRunLock } = await import(${JSON.stringify(RUN_LOCK)});
const [folder, taker, when] = process.argv.slice(2);
const file = path.join(folder, ${JSON.stringify(RUN_LOCK_FILE)});
const take = () =>
  process.stdout.write(execFileSync(process.execPath, [taker, folder]));
await takeRunLock(folder);
const old = new Date(Date.now() - 10 * 60_000);
fs.utimesSync(file, old, old);
if (when === "before") take();
const { readFileSync } = fs;
let stopping = false;
fs.readFileSync = (...args) => {
  const read = readFileSync(...args);
  if (stopping && args[0] === file) {
    stopping = false;
    take();
  }
  return read;
};
syncBuiltinESMExports();
stopping = when === "during";
process.kill(process.pid, "SIGTERM");
setInterval(() => undefined, 1000);
`;

/** Runs the holder to its end: how it ended, and what the taker printed. */
function runHolder(
  dir: string,
  folder: string,
  when: "before" | "during",
): Promise<{ signal: string | null; taker: string }> {
  return new Promise((resolve) => {
    const argv = [path.join(dir, "holder.mjs"), folder, path.join(dir, "taker.mjs"), when];
    const child = execFile(process.execPath, argv, { timeout: 60_000 }, (_error, stdout, stderr) => {
      if (stderr !== "") console.error(stderr);
      resolve({ signal: child.signalCode, taker: stdout });
    });
  });
}

let root: Awaited<ReturnType<typeof tempFolder>>;
let folder: string;
beforeEach(async () => {
  root = await tempFolder();
  folder = path.join(root.dir, "skills");
  await writeFile(path.join(root.dir, "holder.mjs"), HOLDER);
  await writeFile(path.join(root.dir, "taker.mjs"), TAKER);
});
afterEach(async () => {
  await root.remove();
});

describe.runIf(existsSync("/proc/sys/kernel/random/boot_id"))("a run stopped by SIGTERM", () => {
  it("leaves the run lock to the sync that took it over before the stop", { timeout: 60_000 }, async () => {
    expect(await runHolder(root.dir, folder, "before")).toEqual({ signal: "SIGTERM", taker: "taken" });
    const lock = JSON.parse(await readFile(path.join(folder, RUN_LOCK_FILE), "utf8"));
    expect(lock.host).not.toBe("3f2a9c1d7e4b");
  });

  it("removes its run lock whole, a sync taking it over meanwhile waiting its turn", {
    timeout: 60_000,
  }, async () => {
    const ended = await runHolder(root.dir, folder, "during");
    const lockLeft = existsSync(path.join(folder, RUN_LOCK_FILE));
    expect({ ...ended, lockLeft }).toEqual({ signal: "SIGTERM", taker: "held", lockLeft: false });
  });
});
