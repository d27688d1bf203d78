/**
 * Soak: runs the real server process on 127.0.0.1 under a steady mixed load (every tool, several
 * X-Skill-Pack ceilings and ?pack= scopes, some caller mistakes), then prints the request count,
 * latency, errors (must be 0) and the server's resident memory before, after warm-up and at the end.
 *
 *   npm run soak -- [--duration 60] [--connections 64] [--warmup 5] [--skills-dir examples/skills]
 *
 * Exits 1 when any request failed at the HTTP level (a connection error, a timeout or a non-2xx) or the
 * server did not start (a --skills-dir it refuses), 2 when the command line is wrong.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { loadCatalog } from "../src/catalog/index.js";
import { describeArgsError, notWholeNumber, UsageError, wholeNumberIn } from "../src/command-line.js";
import { examplesDir } from "../src/package.js";
import { errorMessage } from "../src/system-errors.js";
import { tolerateClosedOutput } from "./closed-output.js";
import { freePort } from "./free-port.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Options {
  readonly durationSeconds: number;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly skillsDir: string;
}

const USAGE = `Usage: npm run soak -- [options]

Runs the server on 127.0.0.1 under a steady mixed load and prints the requests, latency, errors (must be 0)
and resident memory at the start, after the warm-up and at the end. Exits 1 when any request failed or the
server did not start (a --skills-dir it refuses), 2 when the command line is wrong.

Options:
  --duration SECONDS     how long the load runs (default 60)
  --connections COUNT    concurrent connections (default 64)
  --warmup SECONDS       load before memory is read again, shorter than --duration (default 5)
  --skills-dir FOLDER    the skills folder served (default the bundled examples)
  -h, --help             show this help`;

const SOAK_OPTIONS = {
  duration: { type: "string", default: "60" },
  connections: { type: "string", default: "64" },
  warmup: { type: "string", default: "5" },
  "skills-dir": { type: "string", default: examplesDir() },
  help: { type: "boolean", short: "h" },
} as const;

function readOptions(argv: readonly string[]): Options | "help" {
  let parsed: ReturnType<typeof parseSoakArgs>;
  try {
    parsed = parseSoakArgs(argv);
  } catch (error) {
    throw new UsageError(describeArgsError(error, SOAK_OPTIONS));
  }
  const { values } = parsed;
  if (values.help) return "help";
  const positive = (name: string, value: string) => {
    const number = wholeNumberIn(value);
    if (number === undefined) throw new UsageError(notWholeNumber(`--${name}`, value));
    return number;
  };
  const durationSeconds = positive("duration", values.duration);
  const warmupSeconds = positive("warmup", values.warmup);
  // Memory is read once the warm-up is over: a soak that ends before then has no such reading.
  if (warmupSeconds >= durationSeconds) {
    throw new UsageError(
      `--warmup (${warmupSeconds} s) must be shorter than --duration (${durationSeconds} s)`,
    );
  }
  return {
    durationSeconds,
    connections: positive("connections", values.connections),
    warmupSeconds,
    skillsDir: path.resolve(values["skills-dir"]),
  };
}

function parseSoakArgs(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: SOAK_OPTIONS, strict: true });
}

type Request = { method: "POST"; path: string; headers: Record<string, string>; body: string };

/** Requests built from the catalog itself: every pack as a ceiling, every skill read, searches, mistakes. */
function mixFor(skillsDir: string): Request[] {
  const { catalog } = loadCatalog(skillsDir);
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  let id = 0;
  const call = (
    name: string,
    args: Record<string, string>,
    headers: Record<string, string> = {},
    query = "",
  ) => ({
    method: "POST" as const,
    path: `/mcp${query}`,
    headers: { ...base, ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const requests: Request[] = [call("list_packs", {}), call("list_skills", {})];
  for (const pack of catalog.everything.packs) {
    requests.push(call("list_skills", {}, { "x-skill-pack": pack.name }));
    requests.push(call("list_skills", {}, {}, `?pack=${encodeURIComponent(pack.name)}`));
    requests.push(call("read_pack_file", { pack: pack.name }));
    for (const group of pack.groups)
      requests.push(call("list_skills", { pack: `${pack.name}/${group.name}` }));
  }
  for (const skill of catalog.everything.skills.slice(0, 50)) {
    requests.push(call("read_skill", { skill: skill.id }, { "x-skill-pack": skill.pack }));
    requests.push(call("read_skill", { skill: skill.id, file: "_manifest" }));
    const word = skill.description.split(/\W+/).find((candidate) => candidate.length > 4);
    if (word) requests.push(call("list_skills", { query: word }));
  }
  requests.push(call("read_skill", { skill: "no-such-skill" }));
  requests.push(call("read_pack_file", { pack: "no-such-pack" }));
  requests.push({
    method: "POST",
    path: "/mcp",
    headers: base,
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/list" }),
  });
  return requests;
}

async function startServer(skillsDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href,
      path.join(ROOT, "src/main.ts"),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, SKILLS_DIR: skillsDir, HOST: "127.0.0.1", PORT: String(port), NODE_OPTIONS: "" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  for (let attempt = 0; attempt < 150; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error("the server did not start within 15 s");
}

async function residentMemory(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /^process_resident_memory_bytes (\d+)/m.exec(text);
  return match?.[1] ? Number(match[1]) : Number.NaN;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
  if (options === "help") {
    console.log(USAGE);
    return 0;
  }
  const requests = mixFor(options.skillsDir);
  const port = await freePort();
  const server = await startServer(options.skillsDir, port);
  try {
    const rssAtStart = await residentMemory(port);
    let rssAfterWarmup = Number.NaN;
    const warmup = setTimeout(async () => {
      rssAfterWarmup = await residentMemory(port);
    }, options.warmupSeconds * 1000);
    console.log(
      `soak: ${options.durationSeconds} s, ${options.connections} connections, ${requests.length} distinct requests, ` +
        `catalog ${options.skillsDir}, server on 127.0.0.1:${port}`,
    );
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: options.connections,
      duration: options.durationSeconds,
      requests,
    });
    clearTimeout(warmup);
    await sleep(500);
    const rssAtEnd = await residentMemory(port);
    const errors = result.errors + result.timeouts + result.non2xx;
    console.log(`requests: ${result.requests.total} (${Math.round(result.requests.average)}/s on average)`);
    console.log(
      `latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    console.log(
      `errors: ${errors} (connection errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx})`,
    );
    console.log(
      `resident memory: start ${mib(rssAtStart)}, after ${options.warmupSeconds} s warm-up ${mib(rssAfterWarmup)}, end ${mib(rssAtEnd)}`,
    );
    return errors === 0 ? 0 : 1;
  } finally {
    server.kill("SIGTERM");
  }
}

tolerateClosedOutput();
main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`soak: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`soak: ${errorMessage(error)}`);
    process.exit(1);
  },
);
