/** The catalogs the benchmark serves: the bundled examples, the real corpus beside the checkout, synthetic ones. */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { examplesDir } from "../src/shared/index.js";
import { ROOT } from "./processes.js";
import { writeSyntheticCatalog } from "./synthetic-catalog.js";

/** The bundled examples, found once for the benchmarks that name them. */
export const EXAMPLES_DIR = examplesDir();

/** The real corpus of shared/bench, used in place (never copied into the project). */
export const CORPUS_DIR = path.resolve(ROOT, "../shared/bench/corpus");

export function corpusAvailable(): boolean {
  return existsSync(CORPUS_DIR);
}

const CACHE_DIR = path.join(tmpdir(), "skills-mcp-bench");
const GENERATOR = new URL("./synthetic-catalog.ts", import.meta.url);

interface SyntheticCatalog {
  readonly dir: string;
  /** Set when the catalog was written by this run rather than found in the cache. */
  readonly generatedMs?: number;
}

/**
 * A synthetic catalog of `skills` skills in the temp folder. Writing 50k skills takes half a minute, so
 * catalogs are kept between runs, keyed by the generator's source: changing the generator makes new ones.
 */
export async function syntheticCatalog(skills: number): Promise<SyntheticCatalog> {
  const version = createHash("sha256").update(readFileSync(GENERATOR)).digest("hex").slice(0, 10);
  const name = `synthetic-${skills}-`;
  const dir = path.join(CACHE_DIR, `${name}${version}`);
  const complete = `${dir}.complete`;
  if (existsSync(complete)) return { dir };

  await mkdir(CACHE_DIR, { recursive: true });
  for (const stale of readdirSync(CACHE_DIR).filter((entry) => entry.startsWith(name))) {
    await rm(path.join(CACHE_DIR, stale), { recursive: true, force: true });
  }
  const started = performance.now();
  await writeSyntheticCatalog(dir, { skills });
  await writeFile(complete, "");
  return { dir, generatedMs: performance.now() - started };
}

/**
 * Reads every file under `dir` once, so that a server started next finds them in the page cache: this
 * machine reclaims cold pages on its own (DAMON), and reading them back from disk made the same
 * catalog load take anywhere from one to three times as long.
 */
export async function warmPageCache(dir: string): Promise<void> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
  const reading = 32;
  for (let start = 0; start < files.length; start += reading) {
    await Promise.all(files.slice(start, start + reading).map((file) => readFile(file)));
  }
}
