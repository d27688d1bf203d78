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
import { type StartOrderPlan, startOrderOf } from "./start-order.js";

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
  /** The servers in the order they started for this row: `server`, `control`, the compared build's commit. */
  readonly startOrder?: readonly string[];
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
  /**
   * Which server starts first, row group by row group (`--start-order`): the servers start again for a
   * group whose order differs from the running servers', so under `alternate` for every group.
   */
  readonly startOrder: StartOrderPlan;
  /** Only the requests whose ids start with one of these (`list-skills-new-query`, `read-skill`...). */
  readonly requests?: readonly string[];
}

export interface ThroughputReport {
  readonly skillsDir: string;
  readonly baseline?: string;
  /** The servers in the order they first started: `server`, `control`, or the compared build's commit. */
  readonly startOrder?: readonly string[];
  /** How the start order was planned (`--start-order`); each row says the order it was measured in. */
  readonly startOrderPlan?: StartOrderPlan;
  readonly rows: readonly ThroughputRow[];
  /** This build's server: after its first start, and the most of its starts after their loads. */
  readonly serverResidentBytes: { readonly afterStart: number; readonly afterLoad: number };
}

/** The servers of one start, in the order they started. */
interface StartedBuilds {
  readonly order: readonly Build[];
  readonly running: ReadonlyMap<Build, RunningProcess>;
}

/** What the first start found, which later starts of the same builds reuse. */
interface FirstStart {
  /** The scenarios the compared build serves (none without one). */
  readonly older: readonly Scenario[];
  readonly fixtures: readonly Fixture[];
  readonly ceiling: RunningProcess;
  readonly afterStart: number;
}

export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputReport> {
  const scenarios = scenariosFor(options.skillsDir).filter(
    (scenario) => options.requests?.some((id) => scenario.id.startsWith(`${id}-`)) ?? true,
  );
  if (scenarios.length === 0) throw new Error(`--requests: no request is ${options.requests?.join(", ")}`);
  const groups = rowGroups(scenarios, options.connections);
  const builds = buildsOf(options);
  let started: StartedBuilds | undefined;
  let ceiling: RunningProcess | undefined;
  let afterLoad = 0;
  // This build's resident memory at the end of a start's load, read before that start stops.
  const loaded = (servers: StartedBuilds) =>
    Math.max(afterLoad, servers.running.get("server")?.residentBytes() ?? 0);
  const start = async (order: readonly Build[]) => {
    const servers = await startBuilds(order, options);
    options.progress(`  servers started: ${namesOf(order, options).join(", ")}`);
    return servers;
  };
  try {
    started = await start(startOrderOf(builds, options.startOrder, 0));
    const first = await firstStart(started, scenarios, options);
    ceiling = first.ceiling;
    await warmUp(sidesOf(started, first), started.order, scenarios, options.warmUpSeconds);
    const rows: ThroughputRow[] = [];
    // Counted over the whole run: with an odd number of rounds, a row measures one order once more than
    // the other, and the next row the other once more.
    let turn = 0;
    for (const [index, group] of groups.entries()) {
      const order = startOrderOf(builds, options.startOrder, index);
      if (started.order.join() !== order.join()) {
        afterLoad = loaded(started);
        const previous = started;
        started = undefined;
        await stopAll(previous);
        started = await start(order);
        // The ceiling, started once, stays warm.
        const servers = sidesOf(started, first).filter(({ side }) => side !== "ceiling");
        await warmUp(servers, order, scenarios, options.warmUpSeconds);
      }
      const sides = sidesOf(started, first);
      for (const scenario of group.scenarios) {
        const fixture = first.fixtures.find((candidate) => candidate.id === scenario.id);
        const serving = sides.filter(({ ask }) => ask(scenario) !== undefined);
        // Short runs taken in turns, so that a slow spell of this shared machine hits every side.
        const runs = new Map<Side, LoadRun[]>(serving.map(({ side }) => [side, []]));
        const seconds = options.seconds / options.rounds;
        for (let round = 0; round < options.rounds; round++) {
          for (const { side, target, ask } of turnOrder(serving, turn)) {
            const request = ask(scenario);
            if (request === undefined) continue;
            runs.get(side)?.push(await loadRun(target.url, [request], group.connections, seconds, target));
          }
          turn++;
        }
        const row = rowOf(scenario, group.connections, runs, {
          responseBytes: fixture ? Buffer.from(fixture.body, "base64").length : 0,
          startOrder: namesOf(order, options),
        });
        rows.push(row);
        options.progress(progressLine(row, options.baseline?.name));
      }
    }
    afterLoad = loaded(started);
    return {
      skillsDir: options.skillsDir,
      ...(options.baseline ? { baseline: options.baseline.name } : {}),
      startOrder: namesOf(startOrderOf(builds, options.startOrder, 0), options),
      startOrderPlan: options.startOrder,
      rows: [...rows].sort(
        (a, b) =>
          scenarios.findIndex((scenario) => scenario.id === a.scenario) -
            scenarios.findIndex((scenario) => scenario.id === b.scenario) || a.connections - b.connections,
      ),
      serverResidentBytes: { afterStart: first.afterStart, afterLoad },
    };
  } finally {
    await ceiling?.stop();
    if (started !== undefined) await stopAll(started);
  }
}

/**
 * The rows measured on one start of the servers: a request in each of its eras, one right after the
 * other so that the eras of a request compare within a spell of the machine, at one connection count.
 * The rows are reported by era.
 */
export function rowGroups<S extends { readonly id: string; readonly era: Era }>(
  scenarios: readonly S[],
  connections: readonly number[],
): { readonly scenarios: S[]; readonly connections: number }[] {
  const requests = [...new Set(scenarios.map(requestOf))].sort();
  return requests.flatMap((request) =>
    connections.map((count) => ({
      scenarios: scenarios.filter((scenario) => requestOf(scenario) === request),
      connections: count,
    })),
  );
}

/** Starts `order`'s servers one after the other; if one fails, stops those already started. */
async function startBuilds(order: readonly Build[], options: ThroughputOptions): Promise<StartedBuilds> {
  const running = new Map<Build, RunningProcess>();
  try {
    for (const build of order) {
      running.set(
        build,
        await startServer({
          skillsDir: options.skillsDir,
          logDir: options.workDir,
          name: `server-${build === "server" ? "throughput" : build}`,
          ...(build === "baseline" && options.baseline ? { entry: options.baseline.entry } : {}),
        }),
      );
    }
  } catch (error) {
    await stopAll({ order, running });
    throw error;
  }
  return { order, running };
}

async function stopAll(builds: StartedBuilds): Promise<void> {
  for (const running of builds.running.values()) await running.stop();
}

/**
 * On the first start: which requests the compared build serves and how it answers them, this build's
 * answers (the ceiling's fixtures), and the ceiling, started and checked.
 */
async function firstStart(
  started: StartedBuilds,
  scenarios: readonly Scenario[],
  options: ThroughputOptions,
): Promise<FirstStart> {
  const server = started.running.get("server");
  if (server === undefined) throw new Error("this build's server did not start");
  const baseline = started.running.get("baseline");
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
  const ceiling = await startCeiling(fixturesFile, options.workDir);
  try {
    await checkCeilingAnswers(ceiling.url, scenarios, fixtures);
  } catch (error) {
    await ceiling.stop();
    throw error;
  }
  return { older, fixtures, ceiling, afterStart };
}

/**
 * Each side with the request it is asked in place of a scenario's, if it serves that scenario, in the
 * order of a run's even turns.
 */
function sidesOf(started: StartedBuilds, first: FirstStart): MeasuredSide[] {
  const server = started.running.get("server");
  if (server === undefined) throw new Error("this build's server did not start");
  const baseline = started.running.get("baseline");
  const control = started.running.get("control");
  return [
    {
      side: "ceiling",
      target: first.ceiling,
      ask: (scenario) => ({ ...scenario.request, path: ceilingPath(scenario.id) }),
    },
    ...(baseline
      ? [
          {
            side: "baseline" as const,
            target: baseline,
            ask: (scenario: Scenario) => (first.older.includes(scenario) ? scenario.request : undefined),
          },
        ]
      : []),
    ...(control
      ? [{ side: "control" as const, target: control, ask: (scenario: Scenario) => scenario.request }]
      : []),
    { side: "server", target: server, ask: (scenario) => scenario.request },
  ];
}

/**
 * Every side answers every request it serves for a while first, so that the JIT has settled before
 * timing: the servers in the order they started, the ceiling (when among `sides`) last.
 */
async function warmUp(
  sides: readonly MeasuredSide[],
  order: readonly Build[],
  scenarios: readonly Scenario[],
  seconds: number,
): Promise<void> {
  const warmUpOrder = [
    ...order.flatMap((build) => sides.find(({ side }) => side === build) ?? []),
    ...sides.filter(({ side }) => side === "ceiling"),
  ];
  for (const { target, ask } of warmUpOrder) {
    const requests = scenarios.flatMap((scenario) => ask(scenario) ?? []);
    await runLoad(target.url, requests, 16, seconds);
  }
}

/** A row from the runs each side took of `scenario` at `connections`. */
function rowOf(
  scenario: Scenario,
  connections: number,
  runs: ReadonlyMap<Side, LoadRun[]>,
  recorded: { readonly responseBytes: number; readonly startOrder: readonly string[] },
): ThroughputRow {
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
  return {
    scenario: scenario.id,
    label: scenario.label,
    era: scenario.era,
    connections,
    responseBytes: recorded.responseBytes,
    server: real,
    ceiling: bare,
    ratio: real.requestsPerSecond / bare.requestsPerSecond,
    ...(before ? { baseline: againstCeiling(before) } : {}),
    ...(copy ? { control: againstCeiling(copy) } : {}),
    startOrder: recorded.startOrder,
  };
}

function progressLine(row: ThroughputRow, baselineName: string | undefined): string {
  const { server: real, ceiling: bare } = row;
  return (
    `  ${row.era} ${row.label} x${row.connections}: ${Math.round(real.requestsPerSecond)} req/s ` +
    `(ceiling ${Math.round(bare.requestsPerSecond)}, ${(row.ratio * 100).toFixed(0)}%), ` +
    `p50 ${real.p50Ms.toFixed(2)} ms, p99 ${real.p99Ms.toFixed(2)} ms` +
    (row.control ? `; control: ${Math.round(row.control.requestsPerSecond)} req/s` : "") +
    (row.baseline
      ? `; ${baselineName}: ${Math.round(row.baseline.requestsPerSecond)} req/s (${(row.baseline.ratio * 100).toFixed(0)}%)`
      : "")
  );
}

/** The builds of `order` as the results name them: `server`, `control`, the compared build's commit. */
function namesOf(order: readonly Build[], options: ThroughputOptions): string[] {
  return order.map((build) => (build === "baseline" ? (options.baseline?.name ?? build) : build));
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

/** The builds a run starts, this build's first: the order of a row where it starts first. */
export function buildsOf(options: { readonly control?: boolean; readonly baseline?: unknown }): Build[] {
  return [
    "server",
    ...(options.control ? ["control" as const] : []),
    ...(options.baseline ? ["baseline" as const] : []),
  ];
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
function requestOf(scenario: { readonly id: string; readonly era: Era }): string {
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
