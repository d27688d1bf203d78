/**
 * Throughput and latency of the real server against the ceiling: for each request, the same load on
 * `POST /mcp` of `node dist/main.js` and on a bare Fastify route (another process, another port) that
 * returns the same bytes without MCP, one right after the other.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { loadCatalog, type Skill } from "../src/catalog/index.js";
import { ceilingPath, type Fixture } from "./fixtures.js";
import {
  ERAS,
  type Era,
  type HttpPost,
  type LoadResult,
  type LoadRun,
  loadRun,
  mcpPost,
  post,
  runLoad,
  summarize,
  toolCall,
} from "./load.js";
import { type RunningProcess, startCeiling, startServer } from "./processes.js";

/** A request asked the way a client of its era asks it. */
interface Scenario {
  readonly id: string;
  readonly label: string;
  readonly era: Era;
  readonly request: HttpPost;
}

/** A request phrased as people phrase them, with words most catalogs have. */
export const TYPICAL_QUERY =
  "where should the API key for an external service live so it is not pasted in plain text";

/**
 * The six requests in each era: the fixed ones, and for the catalog at hand the pack of median size and
 * the skill whose SKILL.md has the median size.
 */
function scenariosFor(skillsDir: string): Scenario[] {
  const { everything } = loadCatalog(skillsDir).catalog;
  const packs = [...everything.packs].sort((a, b) => a.skills.length - b.skills.length);
  const pack = packs[Math.floor(packs.length / 2)];
  const skill = medianBySize(everything.skills);
  if (pack === undefined || skill === undefined) throw new Error(`${skillsDir} holds no skill`);
  return ERAS.flatMap((era) =>
    [
      { id: "tools-list", label: "tools/list", request: mcpPost("tools/list", undefined, era) },
      { id: "list-packs", label: "list_packs", request: toolCall("list_packs", {}, era) },
      {
        id: "list-skills-pack",
        label: `list_skills(pack) (${pack.skills.length} skills)`,
        request: toolCall("list_skills", { pack: pack.name }, era),
      },
      {
        id: "list-skills-query",
        label: "list_skills(query), repeated",
        request: toolCall("list_skills", { query: TYPICAL_QUERY }, era),
      },
      {
        // A word no skill holds, new for every request: each one is a search, never a kept answer.
        id: "list-skills-new-query",
        label: "list_skills(query), each new",
        request: toolCall("list_skills", { query: `${TYPICAL_QUERY} [<id>]` }, era),
      },
      {
        id: "read-skill",
        label: `read_skill (${(skill.document.size / 1024).toFixed(1)} KiB)`,
        request: toolCall("read_skill", { skill: skill.id }, era),
      },
    ].map((scenario) => ({ ...scenario, id: `${scenario.id}-${era}`, era })),
  );
}

function medianBySize(skills: readonly Skill[]): Skill | undefined {
  const sorted = [...skills].sort((a, b) => a.document.size - b.document.size || (a.id < b.id ? -1 : 1));
  return sorted[Math.floor(sorted.length / 2)];
}

export interface ThroughputRow {
  readonly scenario: string;
  readonly label: string;
  readonly era: Era;
  readonly connections: number;
  readonly responseBytes: number;
  readonly server: LoadResult;
  readonly ceiling: LoadResult;
  /** Server requests/s over ceiling requests/s. */
  readonly ratio: number;
  /** The build of another commit under the same load, in the same turns (`--compare`). */
  readonly baseline?: LoadResult & { readonly ratio: number };
}

interface ThroughputOptions {
  readonly skillsDir: string;
  readonly connections: readonly number[];
  /** Seconds of load per request, connection count and side, split into `rounds` turns. */
  readonly seconds: number;
  readonly rounds: number;
  readonly warmUpSeconds: number;
  readonly workDir: string;
  readonly progress: (line: string) => void;
  /** Another build to measure in the same turns: its entry point and a name for it. */
  readonly baseline?: { readonly entry: string; readonly name: string };
  /** Only the requests whose ids start with one of these (`list-skills-new-query`, `read-skill`...). */
  readonly requests?: readonly string[];
}

export interface ThroughputReport {
  readonly skillsDir: string;
  readonly baseline?: string;
  readonly rows: readonly ThroughputRow[];
  readonly serverResidentBytes: { readonly afterStart: number; readonly afterLoad: number };
}

export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputReport> {
  const scenarios = scenariosFor(options.skillsDir).filter(
    (scenario) => options.requests?.some((id) => scenario.id.startsWith(`${id}-`)) ?? true,
  );
  if (scenarios.length === 0) throw new Error(`--requests: no request is ${options.requests?.join(", ")}`);
  const server = await startServer({
    skillsDir: options.skillsDir,
    logDir: options.workDir,
    name: "server-throughput",
  });
  let ceiling: RunningProcess | undefined;
  let baseline: RunningProcess | undefined;
  let older: Scenario[] = [];
  try {
    if (options.baseline) {
      baseline = await startServer({
        skillsDir: options.skillsDir,
        logDir: options.workDir,
        name: "server-baseline",
        entry: options.baseline.entry,
      });
      // A build older than the 2026-07-28 era is measured in the 2025 era only.
      const eras = (await speaksModernEra(baseline.url)) ? ERAS : ERAS.filter((era) => era === "2025");
      older = scenarios.filter((scenario) => eras.includes(scenario.era));
      await compareAnswers(server.url, baseline.url, older, options.progress);
    }
    const afterStart = server.residentBytes();
    const fixtures = await recordFixtures(server.url, scenarios);
    const fixturesFile = path.join(options.workDir, "fixtures.json");
    writeFileSync(fixturesFile, JSON.stringify(fixtures));
    ceiling = await startCeiling(fixturesFile, options.workDir);
    await checkCeilingAnswers(ceiling.url, scenarios, fixtures);

    const onCeiling = (scenario: Scenario): HttpPost => ({
      ...scenario.request,
      path: ceilingPath(scenario.id),
    });
    // Both processes answer every request for a while first, so the JIT has settled before timing.
    const all = scenarios.map((scenario) => scenario.request);
    await runLoad(server.url, all, 16, options.warmUpSeconds);
    if (baseline) {
      const requests = older.map((scenario) => scenario.request);
      await runLoad(baseline.url, requests, 16, options.warmUpSeconds);
    }
    await runLoad(ceiling.url, scenarios.map(onCeiling), 16, options.warmUpSeconds);

    const rows: ThroughputRow[] = [];
    // Each request in one era right after the other, so that the eras of a request compare within a
    // spell of the machine; the rows are reported by era.
    const inTurns = [...scenarios].sort((a, b) => requestOf(a).localeCompare(requestOf(b)));
    for (const scenario of inTurns) {
      const fixture = fixtures.find((candidate) => candidate.id === scenario.id);
      for (const connections of options.connections) {
        // Short runs taken in turns, so that a slow spell of this shared machine hits both sides.
        const bareRuns: LoadRun[] = [];
        const realRuns: LoadRun[] = [];
        const baselineRuns: LoadRun[] = [];
        const seconds = options.seconds / options.rounds;
        for (let round = 0; round < options.rounds; round++) {
          bareRuns.push(await loadRun(ceiling.url, [onCeiling(scenario)], connections, seconds, ceiling));
          if (baseline && older.includes(scenario)) {
            baselineRuns.push(
              await loadRun(baseline.url, [scenario.request], connections, seconds, baseline),
            );
          }
          realRuns.push(await loadRun(server.url, [scenario.request], connections, seconds, server));
        }
        const bare = summarize(bareRuns);
        const real = summarize(realRuns);
        const before = baselineRuns.length > 0 ? summarize(baselineRuns) : undefined;
        const row: ThroughputRow = {
          scenario: scenario.id,
          label: scenario.label,
          era: scenario.era,
          connections,
          responseBytes: fixture ? Buffer.from(fixture.body, "base64").length : 0,
          server: real,
          ceiling: bare,
          ratio: real.requestsPerSecond / bare.requestsPerSecond,
          ...(before
            ? { baseline: { ...before, ratio: before.requestsPerSecond / bare.requestsPerSecond } }
            : {}),
        };
        rows.push(row);
        options.progress(
          `  ${scenario.era} ${scenario.label} x${connections}: ${Math.round(real.requestsPerSecond)} req/s ` +
            `(ceiling ${Math.round(bare.requestsPerSecond)}, ${(row.ratio * 100).toFixed(0)}%), ` +
            `p50 ${real.p50Ms.toFixed(2)} ms, p99 ${real.p99Ms.toFixed(2)} ms` +
            (row.baseline
              ? `; ${options.baseline?.name}: ${Math.round(row.baseline.requestsPerSecond)} req/s (${(row.baseline.ratio * 100).toFixed(0)}%)`
              : ""),
        );
      }
    }
    return {
      skillsDir: options.skillsDir,
      ...(options.baseline ? { baseline: options.baseline.name } : {}),
      rows: [...rows].sort(
        (a, b) =>
          scenarios.findIndex((scenario) => scenario.id === a.scenario) -
          scenarios.findIndex((scenario) => scenario.id === b.scenario),
      ),
      serverResidentBytes: { afterStart, afterLoad: server.residentBytes() },
    };
  } finally {
    await ceiling?.stop();
    await baseline?.stop();
    await server.stop();
  }
}

/** The request a scenario asks, whatever its era. */
function requestOf(scenario: Scenario): string {
  return scenario.id.slice(0, -scenario.era.length - 1);
}

/** Whether the build at `url` answers a 2026-07-28 request (one older than that era refuses it). */
async function speaksModernEra(url: string): Promise<boolean> {
  const answer = await post(url, mcpPost("tools/list", undefined, "2026-07-28"));
  return answer.status === 200 && answer.text.includes('"tools"');
}

/** Each request's answer from the real server; a failing one stops the benchmark. */
async function recordFixtures(url: string, scenarios: readonly Scenario[]): Promise<Fixture[]> {
  const fixtures: Fixture[] = [];
  for (const scenario of scenarios) {
    const answer = await post(url, scenario.request);
    const parsed = JSON.parse(answer.text) as { result?: { isError?: boolean } };
    if (answer.status !== 200 || parsed.result === undefined || parsed.result.isError === true) {
      throw new Error(`${scenario.label} failed (${answer.status}): ${answer.text.slice(0, 500)}`);
    }
    fixtures.push({
      id: scenario.id,
      status: answer.status,
      contentType: answer.contentType,
      body: answer.bytes.toString("base64"),
    });
  }
  return fixtures;
}

async function checkCeilingAnswers(
  url: string,
  scenarios: readonly Scenario[],
  fixtures: readonly Fixture[],
): Promise<void> {
  for (const scenario of scenarios) {
    const answer = await post(url, { ...scenario.request, path: ceilingPath(scenario.id) });
    const expected = fixtures.find((fixture) => fixture.id === scenario.id)?.body;
    if (answer.bytes.toString("base64") !== expected) {
      throw new Error(`the ceiling does not give the server's answer to ${scenario.label}`);
    }
  }
}

/** Says which requests the other build answers differently: its figures then measure other work. */
async function compareAnswers(
  url: string,
  baselineUrl: string,
  scenarios: readonly Scenario[],
  progress: (line: string) => void,
): Promise<void> {
  for (const scenario of scenarios) {
    const [now, then] = await Promise.all([post(url, scenario.request), post(baselineUrl, scenario.request)]);
    if (!now.bytes.equals(then.bytes)) {
      progress(
        `  note: the baseline answers ${scenario.label} differently (${then.bytes.length} bytes, now ${now.bytes.length})`,
      );
    }
  }
}
