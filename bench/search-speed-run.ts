/** The work of `npm run bench:search-speed` (see search-speed.ts), loaded once its command line is read. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadCatalog, readSkillDocument, type Scope } from "../src/catalog/index.js";
import { buildIndex, type SearchIndex } from "../src/search/index.js";
import { SHOWN_RESULTS } from "./scoring.js";
import { syntheticQueries, writeSyntheticCatalog } from "./synthetic-catalog.js";
import { withTypo } from "./typos.js";

const WARM_UP_QUERIES = 200;

export async function main(skillCount: number, queryCount: number): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-speed-"));
  try {
    const written = await writeSyntheticCatalog(dir, { skills: skillCount });
    const { catalog } = loadCatalog(dir);
    const everything = catalog.everything;

    const rssBefore = process.memoryUsage().rss;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const index = buildIndex(everything.skills, readSkillDocument);
    const buildMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    const held = await memoryHeldBy(() => buildIndex(everything.skills, readSkillDocument));

    console.log(
      `${written.skills} skills in ${written.packs} packs, ${(written.bytes / 2 ** 20).toFixed(0)} MiB of SKILL.md; ` +
        `Node ${process.version}`,
    );
    console.log(
      `index build: ${buildMs.toFixed(0)} ms (CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms); ` +
        `the index holds ${mib(held.heap)} MiB of heap + ${mib(held.arrays)} MiB of typed arrays; ` +
        `process peak RSS ${mib(peakRss)} MiB (${mib(rssBefore)} before the build)\n`,
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
        printTimes(label, words, timeQueries(index, scopeOf, subset));
      }
    }
    const mistyped = queries.map((query, at) => withTypo(query, String(at)).text);
    for (const [words, subset] of byLength(mistyped)) {
      printTimes(
        "all, a word mistyped",
        words,
        timeQueries(index, () => everything, subset),
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function printTimes(scope: string, words: string, sortedTimes: readonly number[]): void {
  console.log(
    `${scope.padEnd(22)}${words.padEnd(16)}${String(sortedTimes.length).padStart(7)}` +
      `${[0.5, 0.99, 1].map((q) => quantile(sortedTimes, q).toFixed(3).padStart(10)).join("")}`,
  );
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

/**
 * What a value holds in memory: heap and typed arrays (outside the heap) with it alive, less without it,
 * each measured after full garbage collections (their freed buffers are released asynchronously). Taken
 * the other way round (after less before) it would count the garbage the catalog's loading left behind.
 */
async function memoryHeldBy(make: () => unknown): Promise<{ heap: number; arrays: number }> {
  const holder: { value?: unknown } = { value: make() };
  const withIt = await settledMemory();
  delete holder.value;
  const without = await settledMemory();
  return { heap: withIt.heapUsed - without.heapUsed, arrays: withIt.external - without.external };
}

async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const collect = globalThis.gc;
  if (collect === undefined) throw new Error("run with --expose-gc (npm run bench:search-speed does)");
  for (let round = 0; round < 4; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage();
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
