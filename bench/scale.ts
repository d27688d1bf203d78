/**
 * How the server behaves as the catalog grows: synthetic catalogs of each size, served by the real
 * process; startup split, resident memory, end-to-end query latency and the size of the fixed answers.
 */
import { rmSync, statSync } from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { SAVED_INDEX_NAME } from "../src/config/index.js";
import { syntheticCatalog, warmPageCache } from "./catalogs.js";
import {
  type HttpPost,
  type LatencySample,
  type LoadResult,
  mcpPost,
  post,
  runLoad,
  timeOneByOne,
  toolCall,
} from "./load.js";
import { type RunningProcess, saveSearchIndex, startServer } from "./processes.js";
import { type StartOrderPlan, thisBuildFirst } from "./start-order.js";
import { syntheticQueries } from "./synthetic-catalog.js";

export interface StartupSplit {
  /** Node itself and the imports, before main() reads anything. */
  readonly importMs: number;
  readonly catalogMs: number;
  /** Every skill's files read once: SHA-256 digests, the Skills extension's entries, the audit's rules. */
  readonly inspectionMs: number;
  readonly indexMs: number;
  /** Building the Fastify app and listening. */
  readonly listenMs: number;
  /** Process start to listening, as the server measured it. */
  readonly listeningMs: number;
}

/** A start on a search index saved beforehand (`--build-index`, as the image build runs it). */
export interface SavedIndexStart {
  /** `--build-index`: process start to exit, catalog load and index build included. */
  readonly saveMs: number;
  /** Of it, the inspection of every skill: each file read, hashed and audited. */
  readonly saveInspectionMs: number;
  readonly bytes: number;
  readonly readyMs: number;
  readonly startup?: StartupSplit;
  readonly residentAfterStartBytes: number;
  /** The first `tools/list` sent right at ready, end to end (ms): what a client calling first waits. */
  readonly firstToolsListMs: number;
}

export interface ScaleRow {
  readonly skills: number;
  readonly packs: number;
  /** Set when this run wrote the catalog (it is cached between runs). */
  readonly generatedMs?: number;
  /** Spawn to the first 200 of /health, measured by the bench. */
  readonly readyMs: number;
  readonly startup?: StartupSplit;
  readonly residentAfterStartBytes: number;
  readonly residentAfterLoadBytes: number;
  /**
   * The first `tools/list` and the first `list_packs` right after ready, end to end (ms): the server works
   * out its previews after it listens, and a call that comes before that ends tallies what is left.
   */
  readonly firstCalls: { readonly toolsListMs: number; readonly listPacksMs: number };
  /** list_skills(query) end to end, one request at a time on a keep-alive connection. */
  readonly query: LatencySample;
  /** A short mixed load at 16 connections (every tool), run before the second memory reading. */
  readonly mixedLoad: LoadResult;
  readonly toolsListBytes: number;
  readonly toolsListTokens: number;
  readonly listPacksBytes: number;
  readonly listPacksTokens: number;
  readonly savedIndex: SavedIndexStart;
  /** The same start by the build compared against (`--compare`, that build's commit), in the same run. */
  readonly savedIndexBaseline?: SavedIndexStart & { readonly build: string };
  /** With `--compare`, the builds in the order they started on the saved index: `server` and that build's commit. */
  readonly savedIndexStartOrder?: readonly string[];
}

interface ScaleOptions {
  readonly sizes: readonly number[];
  readonly queries: number;
  readonly loadSeconds: number;
  readonly workDir: string;
  readonly progress: (line: string) => void;
  /** Called with the server of the largest catalog before it stops (the token figures use it). */
  readonly withLargest?: (server: RunningProcess, skillsDir: string) => Promise<void>;
  /** Another build (`--compare`), whose start on its own saved index is measured beside this one's. */
  readonly baseline?: { readonly entry: string; readonly name: string };
  /** Which of the two starts first on its saved index, size by size (`--start-order`). */
  readonly startOrder: StartOrderPlan;
}

const WARM_UP_QUERIES = 20;

export async function measureScale(options: ScaleOptions): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  const largest = Math.max(...options.sizes);
  for (const [index, skills] of options.sizes.entries()) {
    const catalog = await syntheticCatalog(skills);
    if (catalog.generatedMs !== undefined) {
      options.progress(`  wrote ${skills} synthetic skills in ${(catalog.generatedMs / 1000).toFixed(1)} s`);
    }
    await warmPageCache(catalog.dir);
    // A run before this one left a saved index: the first start must build its own.
    const savedIndexFile = path.join(catalog.dir, SAVED_INDEX_NAME);
    rmSync(savedIndexFile, { force: true });
    const server = await startServer({
      skillsDir: catalog.dir,
      logDir: options.workDir,
      name: `server-${skills}`,
      // A first call that blocks a large catalog's event loop past a second would make the server shed
      // the calls after it: the firstCalls figures report that stall instead.
      env: { SHED_EVENT_LOOP_DELAY_MS: "0" },
    });
    let row: Omit<ScaleRow, "generatedMs" | "savedIndex">;
    try {
      row = await measureServing(server, skills, options);
      if (skills === largest) await options.withLargest?.(server, catalog.dir);
    } finally {
      await server.stop();
    }
    const starts = await startsOnSavedIndex(catalog.dir, savedIndexFile, options, index);
    const { savedIndex } = starts;
    rows.push({
      ...row,
      ...starts,
      ...(catalog.generatedMs !== undefined ? { generatedMs: catalog.generatedMs } : {}),
    });
    options.progress(
      `  ${skills} skills: ready in ${Math.round(row.readyMs)} ms (${Math.round(savedIndex.readyMs)} ms on a saved ` +
        `index), ${mib(row.residentAfterStartBytes)} MiB resident, query p50 ${row.query.p50Ms.toFixed(2)} ms` +
        (starts.savedIndexStartOrder
          ? `; on the saved index started ${starts.savedIndexStartOrder.join(", ")}`
          : ""),
    );
  }
  return rows;
}

/**
 * This build's start on its saved index, and with `--compare` that build's on its own, in the order planned
 * for the `index`th size: the one started second found the catalog's files in the page cache as the first
 * left them, and this build always went first.
 */
async function startsOnSavedIndex(
  skillsDir: string,
  savedIndexFile: string,
  options: ScaleOptions,
  index: number,
): Promise<Pick<ScaleRow, "savedIndex" | "savedIndexBaseline" | "savedIndexStartOrder">> {
  const { baseline } = options;
  if (baseline === undefined)
    return { savedIndex: await startOnSavedIndex(skillsDir, savedIndexFile, options) };
  const ours = () => startOnSavedIndex(skillsDir, savedIndexFile, options);
  const theirs = () => startOnSavedIndex(skillsDir, savedIndexFile, options, baseline.entry);
  const oursFirst = thisBuildFirst(options.startOrder, index);
  let savedIndex: SavedIndexStart;
  let other: SavedIndexStart;
  if (oursFirst) {
    savedIndex = await ours();
    other = await theirs();
  } else {
    other = await theirs();
    savedIndex = await ours();
  }
  const names = oursFirst ? ["server", baseline.name] : [baseline.name, "server"];
  return {
    savedIndex,
    savedIndexBaseline: { ...other, build: baseline.name },
    savedIndexStartOrder: names,
  };
}

/** Saves the index as the image build does, then times a start that loads it (of `entry`'s build). */
async function startOnSavedIndex(
  skillsDir: string,
  savedIndexFile: string,
  options: ScaleOptions,
  entry?: string,
): Promise<SavedIndexStart> {
  const { ms: saveMs, inspectionMs: saveInspectionMs } = saveSearchIndex(skillsDir, entry);
  const bytes = statSync(savedIndexFile).size;
  const server = await startServer({
    skillsDir,
    logDir: options.workDir,
    name: `server-saved-index-${path.basename(skillsDir)}${entry === undefined ? "" : "-baseline"}`,
    ...(entry !== undefined ? { entry } : {}),
    // As in the first start: a first call's stall is timed, not refused.
    env: { SHED_EVENT_LOOP_DELAY_MS: "0" },
  });
  try {
    const loaded = server.logLines().find((line) => line.msg === "ready")?.index;
    if (loaded !== "loaded") throw new Error(`the server did not load the saved index (${server.logFile})`);
    const residentAfterStartBytes = server.residentBytes();
    const firstToolsList = await timed(() => call(server.url, mcpPost("tools/list")));
    return {
      saveMs,
      saveInspectionMs,
      bytes,
      readyMs: server.readyMs,
      ...startupSplit(server),
      residentAfterStartBytes,
      firstToolsListMs: firstToolsList.ms,
    };
  } finally {
    await server.stop();
  }
}

async function measureServing(
  server: RunningProcess,
  skills: number,
  options: ScaleOptions,
): Promise<Omit<ScaleRow, "generatedMs" | "savedIndex">> {
  const residentAfterStartBytes = server.residentBytes();
  const health = JSON.parse(await (await fetch(`${server.url}/health`)).text()) as { packs: string[] };

  const toolsList = await timed(() => call(server.url, mcpPost("tools/list")));
  const toolsListJson = JSON.stringify(
    (JSON.parse(toolsList.value) as { result: { tools: unknown } }).result.tools,
  );
  const listPacks = await timed(() => call(server.url, toolCall("list_packs")));
  const listPacksText = resultText(listPacks.value);

  const queries = syntheticQueries(WARM_UP_QUERIES + options.queries).map((query) =>
    toolCall("list_skills", { query }),
  );
  await timeOneByOne(server.url, queries.slice(0, WARM_UP_QUERIES));
  const query = await timeOneByOne(server.url, queries.slice(WARM_UP_QUERIES));

  const mixedLoad = await runLoad(
    server.url,
    await mixedRequests(server.url, health.packs),
    16,
    options.loadSeconds,
  );
  return {
    skills,
    packs: health.packs.length,
    readyMs: server.readyMs,
    ...startupSplit(server),
    residentAfterStartBytes,
    residentAfterLoadBytes: server.residentBytes(),
    firstCalls: { toolsListMs: toolsList.ms, listPacksMs: listPacks.ms },
    query,
    mixedLoad,
    toolsListBytes: Buffer.byteLength(toolsListJson),
    toolsListTokens: countTokens(toolsListJson),
    listPacksBytes: Buffer.byteLength(listPacksText),
    listPacksTokens: countTokens(listPacksText),
  };
}

/** Every tool, over several packs and skills: what a busy deployment answers. */
async function mixedRequests(url: string, packs: readonly string[]): Promise<HttpPost[]> {
  const some = packs.filter((_, index) => index % Math.max(1, Math.floor(packs.length / 8)) === 0);
  const requests: HttpPost[] = [mcpPost("tools/list"), toolCall("list_packs")];
  for (const pack of some) {
    requests.push(toolCall("list_skills", { pack }));
    const listing = resultText(await call(url, toolCall("list_skills", { pack })));
    for (const line of listing.split("\n").slice(0, 8)) {
      const name = line.split(": ", 1)[0];
      if (name && !name.startsWith("…") && !name.startsWith("Next")) {
        requests.push(toolCall("read_skill", { skill: name }));
      }
    }
  }
  for (const query of syntheticQueries(40, 3)) requests.push(toolCall("list_skills", { query }));
  return requests;
}

function startupSplit(server: RunningProcess): { startup?: StartupSplit } {
  const ready = server.logLines().find((line) => line.msg === "ready");
  if (ready === undefined) return {};
  const number = (key: string) => (typeof ready[key] === "number" ? (ready[key] as number) : Number.NaN);
  return {
    startup: {
      importMs: number("importMs"),
      catalogMs: number("catalogMs"),
      inspectionMs: number("inspectionMs"),
      indexMs: number("indexMs"),
      listenMs: number("listenMs"),
      listeningMs: number("ms"),
    },
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ readonly value: T; readonly ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

async function call(url: string, request: HttpPost): Promise<string> {
  const answer = await post(url, request);
  if (answer.status !== 200) throw new Error(`${request.body} answered ${answer.status}: ${answer.text}`);
  return answer.text;
}

function resultText(json: string): string {
  const { result } = JSON.parse(json) as { result: { content: { text?: string }[] } };
  return result.content.map((part) => part.text ?? "").join("");
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}
