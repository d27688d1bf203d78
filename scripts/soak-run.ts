/** The work of `npm run soak` (see soak.ts), loaded once its command line is read. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { loadCatalog } from "../src/catalog/index.js";
import { freePort } from "./free-port.js";
import { PRODUCTION_SETTINGS } from "./production-settings.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/**
 * The server as built (`npm run soak` builds first), as production and the benches run it: under tsx its
 * start compiled every module anew, and the memory it reported held tsx's loader too.
 */
const SERVER_ENTRY = path.join(ROOT, "dist/main.js");

export interface Options {
  readonly durationSeconds: number;
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly skillsDir: string;
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
  if (!existsSync(SERVER_ENTRY)) {
    throw new Error(`${SERVER_ENTRY} is missing: run npm run build first (npm run soak does)`);
  }
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...PRODUCTION_SETTINGS,
      SKILLS_DIR: skillsDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      NODE_OPTIONS: "",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
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

export async function main(options: Options): Promise<number> {
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
