/**
 * Builds the server's bundle once before the tests (as `npm run build` does, less its type check, which
 * `npm test` runs on its own), so that tests which start it as a process run `dist/main.js`, as the image
 * and the npm package do, instead of compiling its TypeScript again in every process.
 */
import { fileURLToPath } from "node:url";
import { bundleServer } from "../scripts/build.js";

export default async function setup(): Promise<void> {
  await bundleServer(fileURLToPath(new URL("..", import.meta.url)));
}
