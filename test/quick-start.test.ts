/**
 * SLOW (a type check, a bundle and two server starts: about half a minute here). The README's Quick start,
 * as a newcomer runs it: a clean clone of the repository, then the README's start command as it writes it
 * after `npm ci &&` (on a free port), checked through /health and a tool call; a second start type-checks
 * nothing again.
 *
 * What it does not repeat: the install itself. `.ci/run` begins with `npm ci` on its own fresh clone, so
 * every CI run already proves that the lockfile installs; here `npm ci --dry-run` checks that the lockfile
 * still matches package.json (what makes `npm ci` refuse), and the clone then uses this checkout's
 * node_modules through a symlink, so that the test costs a build and two starts instead of a 370 MB install.
 * The clone holds what is committed: edits not yet committed are not in it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../scripts/free-port.js";
import { ROOT } from "./helpers/process.js";
import { call, connectClient } from "./helpers/remote.js";

const run = promisify(execFile);

/** What the first command runs once `npm ci` is done (see the header for why the install is not run). */
const START = "HOST=127.0.0.1 npm start";
/** The README's two commands, as written: install and serve, then test. */
const QUICK_START = [`npm ci && ${START}`, "npm test"];
/** A first start type-checks all of the server, which takes long on a busy 2-core machine. */
const START_MS = 240_000;

/** The commands of the Quick start's shell block, without their comments. */
function quickStartCommands(readme: string): string[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Quick start\n")) ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
}

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<number | null>;
  output(): string;
}

/**
 * Runs a README command line through the shell, in its own process group (npm starts a shell that starts
 * node), with only what a fresh login shell would have, and waits until its ready line names the endpoint
 * and /health answers.
 */
async function startFromReadme(line: string, cwd: string): Promise<Started> {
  const port = await freePort();
  const child = spawn("sh", ["-c", line], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port) },
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_MS;
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  while (!ended && Date.now() < deadline) {
    // Its own ready line first: the port was free when chosen, and another process may have taken it
    // during the build, whose /health would answer for a server that never started.
    const ready = output.includes(`${url}/mcp`);
    const healthy =
      ready &&
      (await fetch(`${url}/health`).then(
        (answer) => answer.ok,
        () => false,
      ));
    if (healthy) return { child, url, exited, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  stop(child);
  throw new Error(`\`${line}\` did not serve /health on ${url}:\n${output}`);
}

/** A signal to the command's whole process group (sh, npm and node), unless it has ended. */
function stop(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group ended meanwhile.
  }
}

async function stopAndWait(started: Started): Promise<void> {
  stop(started.child);
  const killer = setTimeout(() => stop(started.child, "SIGKILL"), 20_000);
  await started.exited;
  clearTimeout(killer);
}

const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

describe("the README's Quick start", () => {
  it("still says to install with npm ci and start with npm start on 127.0.0.1, then test with npm test", () => {
    expect(quickStartCommands(readme)).toEqual(QUICK_START);
  });
});

describe("the README's Quick start, from a clean clone", { timeout: START_MS + 60_000 }, () => {
  let clone: string;
  const running: Started[] = [];

  beforeAll(async () => {
    clone = await mkdtemp(path.join(tmpdir(), "skills-mcp-quick-start-"));
    await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(running.map(stopAndWait));
    if (clone !== undefined) await rm(clone, { recursive: true, force: true });
  });

  it("has a lockfile that npm ci accepts", async () => {
    const checked = await run("npm", ["ci", "--dry-run", "--no-audit", "--no-fund"], { cwd: clone }).then(
      () => "accepted",
      (error: Error & { stderr?: string }) => error.stderr ?? error.message,
    );
    expect(checked).toBe("accepted");
  }, 120_000);

  it("builds and serves the bundled examples on 127.0.0.1, answering /health and a tool call", async () => {
    await symlink(path.join(ROOT, "node_modules"), path.join(clone, "node_modules"), "dir");
    const server = await startFromReadme(START, clone);
    running.push(server);
    const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", packs: ["design", "workflows"] });
    const client = await connectClient(server.url);
    try {
      expect((await call(client.client, "list_skills", { query: "clean a csv file" })).text).toMatch(
        /^clean-csv: /,
      );
    } finally {
      await client.close();
    }
    await stopAndWait(server);
    expect(server.output()).toContain("tsc -p tsconfig.build.json");
  });

  // The type check is most of a build: the bundle after it takes under a second.
  it("starts again without type-checking what has not changed", async () => {
    const checked = path.join(clone, ".tsbuildinfo");
    const before = (await stat(checked)).mtimeMs;
    const server = await startFromReadme(START, clone);
    running.push(server);
    await stopAndWait(server);
    expect(server.output()).toContain("scripts/build.ts");
    expect((await stat(checked)).mtimeMs).toBe(before);
  });
});
