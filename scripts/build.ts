/**
 * Builds the server into dist/ as one bundle of its code and its dependencies: `dist/main.js` (the bin and
 * the image's entry), which imports the rest from `dist/chunks/` when it needs them (`sync` only when
 * asked for). Node resolved, read and compiled 554 files at every start before: the bundle takes some
 * 40% off the imports, on Node 20 and on Node 24 with its compile cache alike (docs/performance.md).
 * Beside it, `dist/THIRD-PARTY-NOTICES.txt`: the license of every package whose code the bundle carries,
 * and a source map beside each file, which `node --enable-source-maps` reads to name `src/` lines in stacks.
 *
 *   npm run build          (type-checks src/ first: a build with a type error fails)
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type BuildOptions, build } from "esbuild";

/** Node built-ins that a bundled CommonJS dependency requires are found through this `require`. */
const REQUIRE_IN_ESM =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);';

const NOTICES_FILE = "THIRD-PARTY-NOTICES.txt";

/** Writes the bundle of `root`'s `src/main.ts` into `root`'s `dist/`, left empty first: no stale chunk. */
export async function bundleServer(root: string): Promise<void> {
  const outdir = path.join(root, "dist");
  const inputs = await bundle(root, ["src/main.ts"], outdir);
  writeFileSync(path.join(outdir, NOTICES_FILE), notices(root, inputs));
}

/**
 * Bundles `entryPoints` (paths relative to `root`) into `outdir`, left empty first, each at its path from
 * `root` less the folder it shares with the others (`src/main.ts` alone: `main.js`), and gives the bundle's
 * source files. The tests bundle the scripts they run as commands this way too (test/global-setup.ts).
 */
export async function bundle(
  root: string,
  entryPoints: readonly string[],
  outdir: string,
  options: Pick<BuildOptions, "packages" | "plugins"> = {},
): Promise<string[]> {
  rmSync(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: [...entryPoints],
    outdir,
    bundle: true,
    // Dynamic imports become chunks loaded when first imported, as the files were.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: REQUIRE_IN_ESM },
    metafile: true,
    // Linked, so that Node finds a map when source maps are on; without the sources' text, which stack
    // traces do not need (3 MB of maps instead of 10). Node reads none of them unless asked to.
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "warning",
    ...options,
  });
  return Object.keys(metafile.inputs);
}

/**
 * The name, version, license and license text of each package that `inputs` (the bundle's source files)
 * come from: their licenses ask that their notices go with copies of their code, and the bundle is one.
 */
function notices(root: string, inputs: readonly string[]): string {
  const folders = new Set<string>();
  for (const input of inputs) {
    const folder = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
    if (folder !== undefined) folders.add(folder);
  }
  const sections = [...folders].sort().map((folder) => {
    const dir = path.join(root, folder);
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      name?: string;
      version?: string;
      license?: string;
    };
    const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying|notice)/i.test(name));
    const text =
      file === undefined
        ? "(The package holds no license file.)"
        : readFileSync(path.join(dir, file), "utf8");
    return `${"-".repeat(78)}\n${manifest.name}@${manifest.version} (${manifest.license ?? "no license named"})\n\n${text.trim()}\n`;
  });
  return `The bundle in this folder holds code of these packages, under these licenses.\n\n${sections.join("\n")}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await bundleServer(path.resolve(import.meta.dirname, ".."));
}
