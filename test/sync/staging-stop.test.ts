/**
 * A stop signal clears what the run staged, though the run's reads and writes still in flight on other
 * threads land as it does: one landing in the run's staging folder as it is removed (a skill's folder made
 * by mkdtemp) failed the removal with ENOTEMPTY, and the run's folder stayed after the stop.
 */
import { execFile } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { STAGING_DIR } from "../../src/sync/staging.js";
import { VERIFIED_DIR } from "../../src/sync/verified.js";
import { builtModule } from "../helpers/built-scripts.js";
import { tempFolder } from "./helpers.js";

const STAGING = builtModule("src/sync/staging.ts");

/**
 * Clears the staging folder of `folder` as a stop does, the first removal of the run's folder meeting a
 * skill's folder made in it meanwhile, as a write landing from another thread makes it.
 */
const STOPPING = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
const { clearStagingOnStop, MovedAside } = await import(${JSON.stringify(STAGING)});
const [folder, run] = process.argv.slice(2);
const { rmSync } = fs;
let landed = false;
fs.rmSync = (target, options) => {
  if (!landed && target === run) {
    landed = true;
    fs.mkdirSync(path.join(run, "beta-Xk3v9q"));
    const error = new Error("ENOTEMPTY: directory not empty, rmdir '" + run + "'");
    error.code = "ENOTEMPTY";
    throw error;
  }
  return rmSync(target, options);
};
syncBuiltinESMExports();
clearStagingOnStop(folder, new MovedAside());
`;

let root: Awaited<ReturnType<typeof tempFolder>>;
beforeEach(async () => {
  root = await tempFolder();
});
afterEach(async () => {
  await root.remove();
});

it("removes the run's staged skills though a write lands in them as it does", {
  timeout: 60_000,
}, async () => {
  const folder = path.join(root.dir, "skills");
  const staging = path.join(folder, STAGING_DIR);
  const run = path.join(staging, "run-Qm2TfB");
  await mkdir(path.join(run, "alpha-p0L2sd", "alpha"), { recursive: true });
  await writeFile(path.join(run, "alpha-p0L2sd", "alpha", "SKILL.md"), "staged\n");
  await mkdir(path.join(staging, VERIFIED_DIR, "a1b2c3"), { recursive: true });
  await writeFile(path.join(staging, VERIFIED_DIR, "a1b2c3", "d4e5f6"), "verified\n");
  const script = path.join(root.dir, "stopping.mjs");
  await writeFile(script, STOPPING);

  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [script, folder, run], { timeout: 60_000 }, (error) =>
      error === null ? resolve() : reject(error),
    ),
  );

  expect(await readdir(staging)).toEqual([VERIFIED_DIR]);
});
