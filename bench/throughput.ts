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
  /** A second copy of this build under the same load, in the same turns (`--control`). */
  readonly control?: LoadResult & { readonly ratio: number };
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
  /** Whether to start a second copy of this build and measure it as a side of its own. */
  readonly control?: boolean;
  /** Whether the servers start in the reverse of this build, control, baseline. */
  readonly startReversed: boolean;
  /** Only the requests whose ids start with one of these (`list-skills-new-query`, `read-skill`...). */
  readonly requests?: readonly string[];
}

export interface ThroughputReport {
  readonly skillsDir: string;
  readonly baseline?: string;
  /** The servers in the order they started: `server`, `control`, or the compared build's commit. */
  readonly startOrder?: readonly string[];
  readonly rows: readonly ThroughputRow[];
  readonly serverResidentBytes: { readonly afterStart: number; readonly afterLoad: number };
}

export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputReport> {
  const scenarios = scenariosFor(options.skillsDir).filter(
    (scenario) => options.requests?.some((id) => scenario.id.startsWith(`${id}-`)) ?? true,
  );
  if (scenarios.length === 0) throw new Error(`--requests: no request is ${options.requests?.join(", ")}`);
  const builds = startOrder(buildsOf(options), options.startReversed);
  const started = new Map<Build, RunningProcess>();
  let ceiling: RunningProcess | undefined;
  try {
    for (const build of builds) {
      started.set(
        build,
        await startServer({
          skillsDir: options.skillsDir,
          logDir: options.workDir,
          name: `server-${build === "server" ? "throughput" : build}`,
          ...(build === "baseline" && options.baseline ? { entry: options.baseline.entry } : {}),
        }),
      );
    }
    const server = started.get("server");
    if (server === undefined) throw new Error("this build's server did not start");
    const baseline = started.get("baseline");
    const control = started.get("control");
    let older: Scenario[] = [];
    if (baseline) {
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
    // Each side with the request it is asked in place of a scenario's, if it serves that scenario, in the
    // order of a run's even turns.
    const sides: MeasuredSide[] = [
      { side: "ceiling", target: ceiling, ask: (scenario) => onCeiling(scenario) },
      ...(baseline
        ? [
            {
              side: "baseline" as const,
              target: baseline,
              ask: (scenario: Scenario) => (older.includes(scenario) ? scenario.request : undefined),
            },
          ]
        : []),
      ...(control
        ? [{ side: "control" as const, target: control, ask: (scenario: Scenario) => scenario.request }]
        : []),
      { side: "server", target: server, ask: (scenario) => scenario.request },
    ];
    // Every side answers every request it serves for a while first, so the JIT has settled before timing;
    // the servers in the order they started, the ceiling last.
    const warmUpOrder = [
      ...builds.flatMap((build) => sides.find(({ side }) => side === build) ?? []),
      ...sides.filter(({ side }) => side === "ceiling"),
    ];
    for (const { target, ask } of warmUpOrder) {
      const requests = scenarios.flatMap((scenario) => ask(scenario) ?? []);
      await runLoad(target.url, requests, 16, options.warmUpSeconds);
    }

    const rows: ThroughputRow[] = [];
    // Each request in one era right after the other, so that the eras of a request compare within a
    // spell of the machine; the rows are reported by era.
    const inTurns = [...scenarios].sort((a, b) => requestOf(a).localeCompare(requestOf(b)));
    // Counted over the whole run: with an odd number of rounds, a row measures one order once more than
    // the other, and the next row the other once more.
    let turn = 0;
    for (const scenario of inTurns) {
      const fixture = fixtures.find((candidate) => candidate.id === scenario.id);
      const serving = sides.filter(({ ask }) => ask(scenario) !== undefined);
      for (const connections of options.connections) {
        // Short runs taken in turns, so that a slow spell of this shared machine hits every side.
        const runs = new Map<Side, LoadRun[]>(serving.map(({ side }) => [side, []]));
        const seconds = options.seconds / options.rounds;
        for (let round = 0; round < options.rounds; round++) {
          for (const { side, target, ask } of turnOrder(serving, turn)) {
            const request = ask(scenario);
            if (request === undefined) continue;
            runs.get(side)?.push(await loadRun(target.url, [request], connections, seconds, target));
          }
          turn++;
        }
        const measured = (side: Side): LoadResult | undefined => {
          const taken = runs.get(side);
          return taken !== undefined && taken.length > 0 ? summarize(taken) : undefined;
        };
        const bare = measured("ceiling");
        const real = measured("server");
        if (bare === undefined || real === undefined) throw new Error(`${scenario.label} was not measured`);
        const againstCeiling = (result: LoadResult) => ({
          ...result,
          ratio: result.requestsPerSecond / bare.requestsPerSecond,
        });
        const before = measured("baseline");
        const copy = measured("control");
        const row: ThroughputRow = {
          scenario: scenario.id,
          label: scenario.label,
          era: scenario.era,
          connections,
          responseBytes: fixture ? Buffer.from(fixture.body, "base64").length : 0,
          server: real,
          ceiling: bare,
          ratio: real.requestsPerSecond / bare.requestsPerSecond,
          ...(before ? { baseline: againstCeiling(before) } : {}),
          ...(copy ? { control: againstCeiling(copy) } : {}),
        };
        rows.push(row);
        options.progress(
          `  ${scenario.era} ${scenario.label} x${connections}: ${Math.round(real.requestsPerSecond)} req/s ` +
            `(ceiling ${Math.round(bare.requestsPerSecond)}, ${(row.ratio * 100).toFixed(0)}%), ` +
            `p50 ${real.p50Ms.toFixed(2)} ms, p99 ${real.p99Ms.toFixed(2)} ms` +
            (row.control ? `; control: ${Math.round(row.control.requestsPerSecond)} req/s` : "") +
            (row.baseline
              ? `; ${options.baseline?.name}: ${Math.round(row.baseline.requestsPerSecond)} req/s (${(row.baseline.ratio * 100).toFixed(0)}%)`
              : ""),
        );
      }
    }
    return {
      skillsDir: options.skillsDir,
      ...(options.baseline ? { baseline: options.baseline.name } : {}),
      startOrder: builds.map((build) => (build === "baseline" ? (options.baseline?.name ?? build) : build)),
      rows: [...rows].sort(
        (a, b) =>
          scenarios.findIndex((scenario) => scenario.id === a.scenario) -
          scenarios.findIndex((scenario) => scenario.id === b.scenario),
      ),
      serverResidentBytes: { afterStart, afterLoad: server.residentBytes() },
    };
  } finally {
    await ceiling?.stop();
    for (const running of started.values()) await running.stop();
  }
}

/** A process measured in each turn: the ceiling, or a build's server. */
export type Side = "ceiling" | Build;

/** A server the run starts: this build, a second copy of it (`--control`), the build compared against. */
export type Build = "server" | "control" | "baseline";

interface MeasuredSide {
  readonly side: Side;
  readonly target: RunningProcess;
  /** What this side is asked in place of `scenario`, or nothing when it does not serve it. */
  readonly ask: (scenario: Scenario) => HttpPost | undefined;
}

/** The builds a run starts, in the order of a run that is not reversed. */
function buildsOf(options: ThroughputOptions): Build[] {
  return [
    "server",
    ...(options.control ? ["control" as const] : []),
    ...(options.baseline ? ["baseline" as const] : []),
  ];
}

/**
 * The order the servers start in: the one started first cost more in 5 of 6 runs, so a run starts them
 * one way or the other (the bench picks which at random and prints it), never always this build first.
 */
export function startOrder(builds: readonly Build[], reversed: boolean): Build[] {
  return reversed ? [...builds].reverse() : [...builds];
}

/**
 * The order the sides are measured in turn `turn` of a run: the even turns in the order given, the odd
 * ones reversed, so that each side is measured before each other one in every other turn and whatever
 * going first or last costs (a slow spell, what the side before left in the caches) falls on both alike.
 */
export function turnOrder<T>(sides: readonly T[], turn: number): T[] {
  return turn % 2 === 0 ? [...sides] : [...sides].reverse();
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
