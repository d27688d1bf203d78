import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { type ServerProcess, startServerProcess } from "../helpers/process.js";

/**
 * The MCP conformance suite and a real external client (the MCP Inspector's CLI), run as their own
 * processes against the real server process on 127.0.0.1.
 */

const CONFORMANCE = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
);
const INSPECTOR_CLI = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js", import.meta.url),
);
/**
 * The CLI looks for its package.json as "../package.json" from the working folder, so it runs from its
 * own build folder. (The umbrella @modelcontextprotocol/inspector package, which needs Node 22,
 * bundles this same CLI.)
 */
const INSPECTOR_CWD = path.dirname(INSPECTOR_CLI);

function inspector(args: string[]): Promise<Run> {
  return run([INSPECTOR_CLI, ...args], INSPECTOR_CWD);
}

/**
 * The scenarios of @modelcontextprotocol/conformance that apply to a server offering tools only.
 * The others need resources, prompts, logging, completions, sampling, elicitation, or test tools
 * with fixed names (test_image_content, ...), which this server does not have by design.
 */
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a Node program to its end (killed after a minute), with its exit code and all it printed. */
function run(args: string[], cwd = process.cwd(), timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, timeout: timeoutMs, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

let tree: StandardCatalog;
let server: ServerProcess;
let url: string;
beforeAll(async () => {
  tree = await makeStandardCatalog();
  const port = await freePort();
  // A local deployment that lets a browser page on its own origin in, and nothing else.
  server = await startServerProcess({
    SKILLS_DIR: tree.skillsDir,
    PORT: String(port),
    ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
    ALLOWED_HOSTS: `127.0.0.1:${port}`,
    SHUTDOWN_DRAIN_MS: "0",
  });
  url = `${server.url}/mcp`;
});
afterAll(async () => {
  server.child.kill("SIGTERM");
  await server.exited;
  await tree.remove();
});

describe("@modelcontextprotocol/conformance 0.1.13", () => {
  it.each(SCENARIOS)("passes %s", async (scenario) => {
    const result = await run([CONFORMANCE, "server", "--url", url, "--scenario", scenario]);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(result.output);
    console.log(`conformance ${scenario}: ${summary?.[0] ?? "no summary"}`);
    expect(result.code, result.output).toBe(0);
    expect(summary, result.output).not.toBeNull();
    const [, passed, total, failed, warnings] = summary ?? [];
    expect(Number(total)).toBeGreaterThan(0);
    expect(passed).toBe(total);
    expect(failed).toBe("0");
    expect(warnings).toBe("0");
  });
});

describe("the MCP Inspector CLI as an external client", () => {
  it("lists the four tools", async () => {
    const result = await inspector([url, "--transport", "http", "--method", "tools/list"]);
    expect(result.code, result.output).toBe(0);
    const listed = JSON.parse(result.output.slice(result.output.indexOf("{"))) as {
      tools: { name: string }[];
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual([
      "list_packs",
      "list_skills",
      "read_skill",
      "read_pack_file",
    ]);
  });

  it("calls a tool within the ceiling its X-Skill-Pack header sets", async () => {
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
