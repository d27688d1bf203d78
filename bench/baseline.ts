/**
 * Another commit of the server, built beside this checkout, so that a change can be measured against what
 * it replaces in one run, each against the same ceiling: on a shared machine, figures from two runs minutes
 * apart do not compare.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./processes.js";

/** Builds `ref`'s src with this checkout's node_modules; returns its `dist/main.js`. */
export function buildBaseline(ref: string, workDir: string): string {
  const dir = path.join(workDir, "baseline");
  mkdirSync(dir, { recursive: true });
  const files = ["src", "examples", "package.json", "tsconfig.json", "tsconfig.build.json"];
  const archive = execFileSync("git", ["archive", "--format=tar", ref, ...files], {
    cwd: ROOT,
    maxBuffer: 2 ** 30,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  execFileSync(
    process.execPath,
    [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: dir,
      stdio: "inherit",
    },
  );
  return path.join(dir, "dist/main.js");
}

export function describeRef(ref: string): string {
  return execFileSync("git", ["rev-parse", "--short", ref], { cwd: ROOT, encoding: "utf8" }).trim();
}
