/**
 * Times the search index on a synthetic catalog: index build time and memory, and p50/p99 latency of
 * `search` in process, for short, sentence-long and long requests, over the whole catalog and within one
 * pack (a cached ceiling, and a scope narrowed anew per call as list_skills(pack) does).
 *
 *   npm run bench:search-speed -- [skills=10000] [queries=3000]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadCatalog, readSkillDocument, type Scope } from "../src/catalog/index.js";
import { buildIndex, type SearchIndex } from "../src/search/index.js";
import { syntheticQueries, writeSyntheticCatalog } from "./synthetic-catalog.js";

const SHOWN_RESULTS = 10;
const WARM_UP_QUERIES = 200;

async function main(skillCount: number, queryCount: number): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-speed-"));
  try {
    const written = await writeSyntheticCatalog(dir, { skills: skillCount });
    const { catalog } = loadCatalog(dir);
    const everything = catalog.everything;

    const memoryBefore = memoryUsed();
    const started = performance.now();
    const index = buildIndex(everything.skills, readSkillDocument);
    const buildMs = performance.now() - started;
    const indexMb = (memoryUsed() - memoryBefore) / 2 ** 20;

    console.log(
      `${written.skills} skills in ${written.packs} packs, ${(written.bytes / 2 ** 20).toFixed(0)} MiB of SKILL.md; ` +
        `Node ${process.version}`,
    );
    console.log(
      `index build: ${buildMs.toFixed(0)} ms, memory +${indexMb.toFixed(0)} MiB (heap and buffers)\n`,
    );

    const queries = syntheticQueries(queryCount);
    for (const query of queries.slice(0, WARM_UP_QUERIES)) index.search(query, everything, SHOWN_RESULTS);
    const packName = everything.packs[0]?.name ?? "";
    const onePack = everything.narrow([packName]);
    console.log("scope                 request words   queries    p50 ms    p99 ms    max ms");
    const scopes: [string, () => Scope][] = [
      ["all skills", () => everything],
      [`one pack (${onePack.skills.length})`, () => onePack],
      // list_skills(pack, query) narrows the ceiling anew on every call.
      ["one pack, per call", () => everything.narrow([packName])],
    ];
    for (const [label, scopeOf] of scopes) {
      for (const [words, subset] of byLength(queries)) {
        const times = timeQueries(index, scopeOf, subset);
        console.log(
          `${label.padEnd(22)}${words.padEnd(16)}${String(subset.length).padStart(7)}` +
            `${[0.5, 0.99, 1].map((q) => quantile(times, q).toFixed(3).padStart(10)).join("")}`,
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function byLength(queries: readonly string[]): [string, string[]][] {
  const words = (query: string) => query.split(" ").length;
  return [
    ["all", [...queries]],
    ["1-3", queries.filter((query) => words(query) <= 3)],
    ["4-10", queries.filter((query) => words(query) > 3 && words(query) <= 10)],
    ["15-35", queries.filter((query) => words(query) > 10)],
  ];
}

/** Each query's time, including building its scope when `scopeOf` builds one. */
function timeQueries(index: SearchIndex, scopeOf: () => Scope, queries: readonly string[]): number[] {
  return queries
    .map((query) => {
      const started = performance.now();
      index.search(query, scopeOf(), SHOWN_RESULTS);
      return performance.now() - started;
    })
    .sort((a, b) => a - b);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** The index keeps its postings in typed arrays, which live outside the JavaScript heap. */
function memoryUsed(): number {
  globalThis.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const [skills = "10000", queries = "3000"] = process.argv.slice(2);
main(Number(skills), Number(queries)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
