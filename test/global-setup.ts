/**
 * Builds the server's bundle once before the tests (as `npm run build` does, less its type check, which
 * `npm test` runs on its own), so that tests which start it as a process run `dist/main.js`, as the image
 * and the npm package do, instead of compiling its TypeScript again in every process. The scripts and
 * benches that tests run most often as commands, and the modules they import into processes of their own,
 * are bundled alike (test/helpers/built-scripts.ts).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { bundle, bundleServer } from "../scripts/build.js";
import {
  BUILT_BENCHES,
  BUILT_BENCHES_DIR,
  BUILT_MODULES,
  BUILT_MODULES_DIR,
  BUILT_SCRIPTS,
  BUILT_SCRIPTS_BESIDE_SOURCES,
  BUILT_SCRIPTS_BESIDE_SOURCES_DIR,
  BUILT_SCRIPTS_DIR,
} from "./helpers/built-scripts.js";

/**
 * Has each of the project's modules in a bundle read `import.meta.url` and `import.meta.dirname` as its
 * source file's, as under tsx, instead of the bundle's: the benches and some scripts open files beside
 * their sources.
 */
const SOURCE_IMPORT_META: Plugin = {
  name: "source-import-meta",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(file, "utf8");
      return {
        contents: source
          .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href))
          .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(file))),
        loader: "ts",
      };
    });
  },
};

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await Promise.all([
    bundleServer(root),
    bundle(root, BUILT_SCRIPTS, BUILT_SCRIPTS_DIR),
    bundle(root, BUILT_SCRIPTS_BESIDE_SOURCES, BUILT_SCRIPTS_BESIDE_SOURCES_DIR, {
      packages: "external",
      plugins: [SOURCE_IMPORT_META],
    }),
    bundle(root, BUILT_BENCHES, BUILT_BENCHES_DIR, {
      packages: "external",
      plugins: [SOURCE_IMPORT_META],
    }),
    bundle(root, BUILT_MODULES, BUILT_MODULES_DIR, {
      packages: "external",
      plugins: [SOURCE_IMPORT_META],
    }),
  ]);
}
