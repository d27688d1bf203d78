/**
 * Builds the server's bundle once before the tests (as `npm run build` does, less its type check, which
 * `npm test` runs on its own), so that tests which start it as a process run `dist/main.js`, as the image
 * and the npm package do, instead of compiling its TypeScript again in every process. The scripts that
 * tests run most often as commands are bundled alike (test/helpers/built-scripts.ts).
 */
import { fileURLToPath } from "node:url";
import { bundle, bundleServer } from "../scripts/build.js";
import { BUILT_SCRIPTS, BUILT_SCRIPTS_DIR } from "./helpers/built-scripts.js";

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await Promise.all([bundleServer(root), bundle(root, BUILT_SCRIPTS, BUILT_SCRIPTS_DIR)]);
}
