/**
 * Builds the server into dist/ as one bundle of its code and its dependencies: `dist/main.js` (the bin and
 * the image's entry), which imports the rest from `dist/chunks/` when it needs them (`sync` only when
 * asked for). Node resolved, read and compiled 554 files at every start before: the bundle takes some
 * 40% off the imports, on Node 20 and on Node 24 with its compile cache alike (docs/performance.md).
 *
 *   npm run build          (type-checks src/ first: a build with a type error fails)
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** Node built-ins that a bundled CommonJS dependency requires are found through this `require`. */
const REQUIRE_IN_ESM =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);';

/** Writes the bundle of `root`'s `src/main.ts` into `root`'s `dist/`, left empty first: no stale chunk. */
export async function bundleServer(root: string): Promise<void> {
  const outdir = path.join(root, "dist");
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ["src/main.ts"],
    outdir,
    bundle: true,
    // Dynamic imports become chunks loaded when first imported, as the files were.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: REQUIRE_IN_ESM },
    logLevel: "warning",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await bundleServer(path.resolve(import.meta.dirname, ".."));
}
