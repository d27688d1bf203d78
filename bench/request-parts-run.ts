/** The work of `npm run bench:parts` (see request-parts.ts), loaded once its command line is read. */
import type { IncomingMessage } from "node:http";
import { GCProfiler, type HeapSpaceStatistics } from "node:v8";
import {
  createMcpHandler,
  type JSONRPCRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { mcpDepsOf } from "../scripts/in-memory-client.js";
import type { Scope } from "../src/catalog/index.js";
import { McpEndpoint, ServerConnection } from "../src/http/index.js";
import { serverFactoryFor } from "../src/mcp/index.js";
import { isCommonWord } from "../src/search/common-words.js";
import { type Era, MODERN_META, toolCall } from "./load.js";
import { TYPICAL_QUERY } from "./throughput.js";

/** The headers of the throughput benchmark's requests, and the host a client sends. */
const headersOf = (era: Era) => ({
  host: "127.0.0.1",
  ...toolCall("list_skills", {}, era).headers,
});
const LEGACY_HEADERS = headersOf("2025");
const MODERN_HEADERS = headersOf("2026-07-28");

export async function main(dir: string, count: number, rounds: number): Promise<void> {
  const deps = await mcpDepsOf(dir);
  const scope = deps.catalog.everything;
  let asked = 0;
  // A new search every time, as the throughput benchmark's "each new" row asks it.
  const query = () => `${TYPICAL_QUERY} q${++asked}`;
  const call = (): JSONRPCRequest => ({
    jsonrpc: "2.0",
    id: asked,
    method: "tools/call",
    params: { name: "list_skills", arguments: { query: query() } },
  });
  const modernCall = (): JSONRPCRequest => {
    const body = call();
    return { ...body, params: { ...body.params, _meta: MODERN_META } };
  };
  const raw = (headers: Record<string, string>) =>
    ({ method: "POST", url: "/mcp", headers }) as unknown as IncomingMessage;
  const webRequest = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: new Headers(headers) });
  const newServer = serverFactoryFor(deps, scope);
  const endpoint = new McpEndpoint(newServer, () => {});
  const connections = {
    legacy: await ServerConnection.open(newServer({ era: "legacy" }), "legacy"),
    modern: await ServerConnection.open(newServer({ era: "modern" }), "modern"),
  };
  const modernEntry = createMcpHandler(newServer, { legacy: "reject" });

  const { pack, packScope, nameStart } = packCase(scope);
  // The same search within the pack, as a `?pack=` or header scope kept by the HTTP layer asks it: the
  // name-start rule then looks at the names in scope only (see `NameWords.begunBy`).
  const inPack = () => deps.index.search(query(), packScope, 10);
  // And with a word that begins a longer word of the pack's names, which the rule looks up in scope.
  const beginningInPack = () => deps.index.search(`${nameStart} ${query()}`, packScope, 10);

  const parts: [string, () => unknown][] = [
    ["the search itself (the 10 best of the catalog)", () => deps.index.search(query(), scope, 10)],
    [`the search itself, within ${pack} (${packScope.skills.length} skills)`, inPack],
    [`the search itself, within ${pack}, with "${nameStart}"`, beginningInPack],
    ["a new server, from its scope's factory", () => newServer({ era: "modern" })],
    ["a web Request as the SDK's entries take it", () => webRequest(LEGACY_HEADERS)],
    ["2025: over the scope's connection", () => connections.legacy.exchange(call())],
    ["2026-07-28: over the scope's connection", () => connections.modern.exchange(modernCall())],
    [
      "2025: a new server and a connection of its own",
      async () => (await ServerConnection.open(newServer(), "legacy")).exchange(call()),
    ],
    [
      "2025: the SDK's stateless transport (batches)",
      async () => {
        const fresh = newServer();
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await fresh.connect(transport);
        const response = await transport.handleRequest(webRequest(LEGACY_HEADERS), { parsedBody: call() });
        await response.arrayBuffer();
        await Promise.all([transport.close(), fresh.close()]);
      },
    ],
    [
      "2026-07-28: the SDK's createMcpHandler",
      async () => {
        const response = await modernEntry.fetch(webRequest(MODERN_HEADERS), { parsedBody: modernCall() });
        await response.arrayBuffer();
      },
    ],
    [
      "2025: the endpoint (era told, answered, serialized)",
      () => endpoint.answer(raw(LEGACY_HEADERS), call()),
    ],
    ["2026-07-28: the endpoint", () => endpoint.answer(raw(MODERN_HEADERS), modernCall())],
  ];
  console.log(
    `Each part of a new search, on ${dir} (${scope.skills.length} skills), a request: CPU the least of ${rounds} rounds of ${count}, scavenges over them all:`,
  );
  console.log(row("part", COLUMNS));
  const measured = new Map<string, Measured>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, part] of parts) {
      for (let i = 0; i < count / 4; i++) await part();
      const profiler = new GCProfiler();
      profiler.start();
      const started = process.cpuUsage();
      for (let i = 0; i < count; i++) await part();
      const { user, system } = process.cpuUsage(started);
      const scavenges = profiler.stop().statistics.filter(({ gcType }) => gcType === "Scavenge");
      const before = measured.get(name) ?? { leastCpu: Number.POSITIVE_INFINITY, promoted: 0, scavenging: 0 };
      measured.set(name, {
        leastCpu: Math.min(before.leastCpu, (user + system) / count),
        promoted:
          before.promoted +
          sum(scavenges.map((gc) => Math.max(0, bytesPastYoung(gc.afterGC) - bytesPastYoung(gc.beforeGC)))),
        scavenging: before.scavenging + sum(scavenges.map(({ cost }) => cost)),
      });
    }
  }
  const requests = rounds * count;
  for (const [name, { leastCpu, promoted, scavenging }] of measured) {
    const figures = [
      leastCpu.toFixed(1),
      (promoted / requests / 1024).toFixed(2),
      (scavenging / requests).toFixed(1),
    ];
    console.log(row(name, figures));
  }
}

/** Letters of a name word that the scoped case's request word holds: as many as a short form needs. */
const NAME_START = 6;
/** The most name words a request word may begin to be read as their short form (`NAME_STARTS`). */
const NAME_STARTS_READ = 3;

/**
 * The pack of most skills, its scope, and the first letters of the first word of its skills' names longer
 * than {@link NAME_START} letters (sorted) that begin a few of them and no common word, as a request word
 * that begins a name word of the pack.
 */
function packCase(scope: Scope): { pack: string; packScope: Scope; nameStart: string } {
  const counts = new Map<string, number>();
  for (const skill of scope.skills) counts.set(skill.pack, (counts.get(skill.pack) ?? 0) + 1);
  const [pack = ""] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? [];
  const packScope = scope.narrow([pack]);
  const nameWords = new Set(
    packScope.skills.flatMap(({ name }) => name.toLowerCase().match(/[a-z]+/g) ?? []),
  );
  const longer = [...nameWords].filter((word) => word.length > NAME_START).sort();
  const begun = (start: string) => longer.filter((word) => word.startsWith(start)).length;
  // One that begins a few name words and is no common word: the rule passes over others before its
  // dearer tests (see `NameStarts.namesBegun`).
  const nameStart = longer
    .map((word) => word.slice(0, NAME_START))
    .find((start) => begun(start) <= NAME_STARTS_READ && !isCommonWord(start));
  return { pack, packScope, nameStart: nameStart ?? "" };
}

const COLUMNS = ["CPU µs", "promoted KB", "scavenges µs"];

/** A line of the table: the part, then each figure under its column, two spaces apart at least. */
function row(part: string, cells: readonly string[]): string {
  return part.padEnd(60) + cells.map((cell, i) => cell.padStart((COLUMNS[i]?.length ?? 0) + 2)).join("");
}

/**
 * A part's least CPU of a round, and what its scavenges moved to the old generation (bytes) and took
 * (µs) over every round: a round of a few thousand requests may see no scavenge at all.
 */
interface Measured {
  readonly leastCpu: number;
  readonly promoted: number;
  readonly scavenging: number;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * Bytes held in every space of the heap but the young generation's. What it grows by across a scavenge is
 * what that scavenge promoted, unless the old generation's sweeping freed pages meanwhile, which reads as
 * less than nothing and is counted as nothing.
 */
function bytesPastYoung({
  heapSpaceStatistics,
}: {
  readonly heapSpaceStatistics: HeapSpaceStatistics[];
}): number {
  return sum(
    heapSpaceStatistics
      .filter(({ spaceName }) => !spaceName.startsWith("new_"))
      .map(({ spaceUsedSize }) => spaceUsedSize),
  );
}
