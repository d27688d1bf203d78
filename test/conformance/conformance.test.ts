import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/process.js";
import { THE_FOUR_TOOLS } from "../helpers/server.js";

/**
 * The MCP conformance suite and a real external client (the MCP Inspector's CLI), run as their own
 * processes against the real server process on 127.0.0.1. The suite needs Node 22 (fs.globSync): it lives
 * with the Node 22 of the npm registry in runner/, installed from its own lockfile on first use, so that
 * the project itself stays on Node 20.
 */

const RUNNER = fileURLToPath(new URL("./runner", import.meta.url));
const NODE_22 = path.join(RUNNER, "node_modules/node/bin/node");
const CONFORMANCE = path.join(RUNNER, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const INSPECTOR_CLI = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js", import.meta.url),
);
/**
 * The CLI looks for its package.json as "../package.json" from the working folder, so it runs from its
 * own build folder. (The umbrella @modelcontextprotocol/inspector package, which needs Node 22,
 * bundles this same CLI.)
 */
const INSPECTOR_CWD = path.dirname(INSPECTOR_CLI);

/**
 * Checks that do not pass here, each for a reason docs/conformance.md gives: the test holds the suite's
 * verdict to exactly these (a check the suite only informs about is neither a pass nor a failure).
 */
const NAMES_SHARED_ACROSS_PACKS = "sep-2640-names-should-be-unique";
const NEEDS_A_CAPABILITY_TOOL = [
  "sep-2575-server-rejects-undeclared-capability",
  "sep-2575-missing-capability-http-400",
];

/**
 * Checks the suite skips as not applicable, held exactly too, so that each scenario's count (29 of 32 for
 * sep-2640-skills-enumeration in 2025) is accounted for check by check and a check newly skipped because
 * of an answer of ours shows: 2026-07-28's cache fields asked of a 2025 session, and `listChanged`
 * notifications of a server whose lists never change.
 */
const CACHE_FIELDS_OF_2026 = [
  "sep-2640-skills-list-cache-attributes",
  "sep-2640-skills-get-cache-attributes",
];
const NO_LIST_CHANGES = [
  "sep-2575-server-sends-prompts-list-changed-on-subscription",
  "sep-2575-server-sends-tools-list-changed-on-subscription",
];

/**
 * Each scenario that applies to this server, in each era it applies to. The Skills extension's scenarios
 * are outside the spec's timeline; they run in both eras (`--force`).
 */
const SCENARIOS: readonly {
  scenario: string;
  era: string;
  force?: boolean;
  notMet?: string[];
  notApplicable?: string[];
}[] = [
  { scenario: "server-initialize", era: "2025-11-25" },
  { scenario: "ping", era: "2025-11-25" },
  ...["2025-11-25", "2026-07-28"].flatMap((era) => [
    { scenario: "tools-list", era },
    { scenario: "resources-list", era },
    { scenario: "prompts-list", era },
    { scenario: "dns-rebinding-protection", era },
    // The catalog has a skill of one name in two packs, as real ones do: the tools name it pack/name.
    {
      scenario: "sep-2640-skills-enumeration",
      era,
      force: true,
      notMet: [NAMES_SHARED_ACROSS_PACKS],
      notApplicable: era === "2025-11-25" ? CACHE_FIELDS_OF_2026 : [],
    },
    { scenario: "sep-2640-skills-manifest", era, force: true },
    { scenario: "sep-2640-skills-directory", era, force: true },
  ]),
  {
    scenario: "server-stateless",
    era: "2026-07-28",
    notMet: NEEDS_A_CAPABILITY_TOOL,
    notApplicable: NO_LIST_CHANGES,
  },
  { scenario: "caching", era: "2026-07-28" },
  { scenario: "http-header-validation", era: "2026-07-28" },
  { scenario: "sep-2164-resource-not-found", era: "2026-07-28" },
];

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a program to its end (killed after `timeoutMs`), with its exit code and all it printed. */
function run(command: string, args: string[], cwd = process.cwd(), timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, timeout: timeoutMs, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function inspector(args: string[]): Promise<Run> {
  return run(process.execPath, [INSPECTOR_CLI, ...args], INSPECTOR_CWD);
}

/** The runner's lockfile installed: on a fresh machine, the first run installs it (some seconds). */
async function installRunner(): Promise<void> {
  if (existsSync(NODE_22) && existsSync(CONFORMANCE)) return;
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const installed = await run(npm, ["ci", "--no-audit", "--no-fund"], RUNNER, 300_000);
  expect(installed.code, installed.output).toBe(0);
}

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

let tree: StandardCatalog;
let server: ServerProcess;
let url: string;
let results: string;
beforeAll(async () => {
  await installRunner();
  // The first skill listed gets a subfolder, for the suite's check of directory reads to walk into.
  tree = await makeStandardCatalog({ "skills/alpha/one/references/examples.md": "# Examples of one\n" });
  results = await mkdtemp(path.join(tmpdir(), "skills-mcp-conformance-"));
  const port = await freePort();
  // A local deployment that lets a browser page on its own origin in, and nothing else.
  server = await startServerProcess({
    SKILLS_DIR: tree.skillsDir,
    PORT: String(port),
    ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
    ALLOWED_HOSTS: `127.0.0.1:${port},localhost:${port}`,
    SHUTDOWN_DRAIN_MS: "0",
  });
  url = `${server.url}/mcp`;
}, 360_000);
afterAll(async () => {
  server?.child.kill("SIGTERM");
  await server?.exited;
  await tree?.remove();
  if (results) await rm(results, { recursive: true, force: true });
});

/** The checks the suite made of one scenario at `era` against `endpoint`, each pass counted in the log. */
async function checksOf(scenario: string, era: string, force: boolean, endpoint: string): Promise<Check[]> {
  const output = path.join(results, `${scenario}-${era}-${endpoint === url ? "all" : "scoped"}`);
  const args = [CONFORMANCE, "server", "--url", endpoint, "--scenario", scenario, "--spec-version", era];
  const result = await run(NODE_22, [...args, ...(force ? ["--force"] : []), "-o", output]);
  const [folder] = existsSync(output) ? readdirSync(output) : [];
  expect(folder, result.output).toBeDefined();
  const checks = JSON.parse(readFileSync(path.join(output, folder ?? "", "checks.json"), "utf8")) as Check[];
  console.log(
    `conformance ${scenario} ${era}: ${checks.filter((c) => c.status === "SUCCESS").length}/${checks.length}`,
  );
  expect(checks.length).toBeGreaterThan(0);
  return checks;
}

/** Holds the checks not met (failures, warnings) and those skipped to exactly the ones expected. */
function expectVerdict(
  checks: readonly Check[],
  notMet: readonly string[],
  notApplicable: readonly string[],
) {
  const unmet = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
  expect(
    unmet.map(({ id }) => id),
    unmet.map(({ id, status, errorMessage }) => `${id} ${status}: ${errorMessage}`).join("\n"),
  ).toEqual(notMet);
  const skipped = checks.filter((check) => check.status === "SKIPPED");
  expect(
    skipped.map(({ id }) => id),
    skipped.map(({ id, errorMessage }) => `${id} SKIPPED: ${errorMessage}`).join("\n"),
  ).toEqual(notApplicable);
}

describe("@modelcontextprotocol/conformance 0.2.0-alpha.12", () => {
  it.each(SCENARIOS)(
    "passes $scenario at $era",
    async ({ scenario, era, force = false, notMet = [], notApplicable = [] }) => {
      expectVerdict(await checksOf(scenario, era, force, url), notMet, notApplicable);
    },
  );

  // The one warning is the catalog's, not the server's: in a scope serving each name once (pack alpha, by
  // `?pack=`, as a client that can only set a URL scopes itself), every check of the scenario is met.
  it.each(["2025-11-25", "2026-07-28"])(
    "meets every check of sep-2640-skills-enumeration at %s in a scope whose names are unique",
    async (era) => {
      const checks = await checksOf("sep-2640-skills-enumeration", era, true, `${url}?pack=alpha`);
      expectVerdict(checks, [], era === "2025-11-25" ? CACHE_FIELDS_OF_2026 : []);
    },
  );
});

describe("the MCP Inspector CLI as an external client", () => {
  it("lists the four tools", async () => {
    const result = await inspector([url, "--transport", "http", "--method", "tools/list"]);
    expect(result.code, result.output).toBe(0);
    const listed = JSON.parse(result.output.slice(result.output.indexOf("{"))) as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(THE_FOUR_TOOLS);
  });

  it("calls a tool within the scope its X-Skill-Pack header sets", async () => {
    const call = (header: string) =>
      inspector([
        url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "list_skills",
        "--header",
        `X-Skill-Pack: ${header}`,
      ]);
    const gamma = await call("gamma");
    expect(gamma.code, gamma.output).toBe(0);
    const answer = JSON.parse(gamma.output.slice(gamma.output.indexOf("{"))) as {
      content: { type: string; text: string }[];
    };
    expect(answer.content[0]?.text).toBe('drill: Drill holes in walls.\nNext: read_skill(skill="<name>").');
    const docs = await call("beta/docs");
    expect(docs.output).toContain("editor: Edit documentation deep in a tree.");
    expect(docs.output).not.toContain("drill");
  });
});
