/**
 * Builds the server once before the tests (as `npm run build` does, incrementally: a few seconds when
 * nothing changed), so that tests which start it as a process run `dist/main.js`, as the image and the npm
 * package do, instead of compiling its TypeScript again in every process.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export default function setup(): void {
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
}
