/**
 * Another commit of the server, built beside this checkout, so that a change can be measured against what
 * it replaces in one run, each against the same ceiling: on a shared machine, figures from two runs minutes
 * apart do not compare.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./processes.js";

/**
 * Builds `ref`'s src with this checkout's node_modules, as that commit built it (a bundle since
 * scripts/build.ts, TypeScript's output file by file before); returns its `dist/main.js`.
 */
export function buildBaseline(ref: string, workDir: string): string {
  const dir = path.join(workDir, "baseline");
  mkdirSync(dir, { recursive: true });
  const bundled = holds(ref, BUNDLER);
  const files = ["src", "examples", "package.json", "tsconfig.json", "tsconfig.build.json"];
  const archive = execFileSync(
    "git",
    ["archive", "--format=tar", ref, ...files, ...(bundled ? [BUNDLER] : [])],
    {
      cwd: ROOT,
      maxBuffer: 2 ** 30,
    },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  const build = bundled
    ? [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), BUNDLER]
    : [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"];
  execFileSync(process.execPath, build, { cwd: dir, stdio: "inherit" });
  return path.join(dir, "dist/main.js");
}

const BUNDLER = "scripts/build.ts";

function holds(ref: string, file: string): boolean {
  try {
    execFileSync("git", ["cat-file", "-e", `${ref}:${file}`], { cwd: ROOT, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function describeRef(ref: string): string {
  return execFileSync("git", ["rev-parse", "--short", ref], { cwd: ROOT, encoding: "utf8" }).trim();
}
