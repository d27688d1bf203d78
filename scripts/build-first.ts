import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The project's root, whose dist/ the build writes: the folder above scripts/. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Builds dist/ as `npm run build` does, its output shown: for a command whose work runs
 * dist/main.js (npm run bench, npm run soak), once its command line is read. Their npm scripts built first
 * (`npm run build && …`), so that --help and a wrong option waited a minute for the build. Whether it built.
 */
export function builtFirst(): boolean {
  return spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status === 0;
}
