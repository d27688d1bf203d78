/**
 * What many parallel reads of one large file cost the server's memory: starts the server on a catalog
 * holding a 15 MB text file and a 15 MB binary file (pack files, so no size limit of the Skills extension
 * applies), sends `--parallel` `resources/read` of one of them at once in each protocol era, and prints the
 * server's resident memory before, at its peak (VmHWM) and after, with the answers' statuses and sizes.
 * Each run has a server of its own, so that each peak is its own, with load shedding off and a long request
 * timeout, so that every read is answered however loaded the machine is.
 *
 *   npx tsx bench/large-reads.ts [--parallel 32] [--megabytes 15] [--root <checkout>]
 *
 * `--root` measures another checkout's source (its `src/main.ts`, through this checkout's tsx): a before
 * and after in one command.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../scripts/free-port.js";
import { numberAbove0, readCommandLine, wholeNumber } from "./command-line.js";
import { ROOT } from "./processes.js";

const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const ERAS = ["legacy", "modern"] as const;
type Era = (typeof ERAS)[number];
const KINDS = ["text", "binary"] as const;
type Kind = (typeof KINDS)[number];

const COMMAND = {
  name: "bench/large-reads",
  usage: "usage: npx tsx bench/large-reads.ts [--parallel 32] [--megabytes 15] [--root <checkout>]",
};
const { values } = readCommandLine(COMMAND, {
  parallel: { type: "string", default: "32" },
  megabytes: { type: "string", default: "15" },
  root: { type: "string", default: ROOT },
});
const parallel = wholeNumber(COMMAND, "--parallel", values.parallel);
const bytes = numberAbove0(COMMAND, "--megabytes", values.megabytes) * 1_000_000;
const root = path.resolve(values.root);

/** A catalog of one skill, and beside it the two large pack files. */
async function makeCatalog(dir: string): Promise<void> {
  await mkdir(path.join(dir, "big/reader"), { recursive: true });
  await writeFile(
    path.join(dir, "big/reader/SKILL.md"),
    "---\nname: reader\ndescription: Reads large files.\n---\n# Reader\n",
  );
  const line = "a line of a large reference file, repeated until the file is large enough\n";
  await writeFile(
    path.join(dir, "big/large.txt"),
    line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes),
  );
  await writeFile(path.join(dir, "big/large.bin"), Buffer.concat([Buffer.from([0]), randomBytes(bytes - 1)]));
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
}

async function start(skillsDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", TSX_LOADER, path.join(root, "src/main.ts")], {
    env: {
      ...process.env,
      SKILLS_DIR: skillsDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      // Every read answered, however loaded the machine: what is measured is what the answers cost.
      SHED_EVENT_LOOP_DELAY_MS: "0",
      REQUEST_TIMEOUT_MS: "120000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 300; tries++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error("the server did not start");
}

/** Resident memory now and at its peak, in MB (Linux /proc). */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: Math.round(field("VmRSS")), peak: Math.round(field("VmHWM")) };
}

function readRequest(era: Era, id: number, uri: string): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (era === "legacy") {
    return {
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri } }),
    };
  }
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    headers: {
      ...headers,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "resources/read",
      "mcp-name": uri,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri, _meta } }),
  };
}

async function measure(skillsDir: string, era: Era, kind: Kind): Promise<string> {
  const server = await start(skillsDir);
  const pid = server.child.pid ?? 0;
  try {
    const before = await memory(pid);
    const uri = `skill://big/large.${kind === "text" ? "txt" : "bin"}`;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: parallel }, async (_, id) => {
        const { headers, body } = readRequest(era, id, uri);
        const response = await fetch(`${server.url}/mcp`, { method: "POST", headers, body });
        return { status: response.status, size: (await response.arrayBuffer()).byteLength };
      }),
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const after = await memory(pid);
    const statuses = [...new Set(answers.map((answer) => answer.status))].join(",");
    const sizes = [...new Set(answers.map((answer) => answer.size))].map((size) => (size / 1e6).toFixed(2));
    return (
      `| ${era} | ${kind} | ${before.rss} | ${after.peak} | ${after.rss} | ${statuses} | ${sizes.join(", ")} | ` +
      `${seconds} |`
    );
  } finally {
    server.child.kill("SIGKILL");
  }
}

const dir = await mkdtemp(path.join(tmpdir(), "large-reads-"));
try {
  await makeCatalog(dir);
  console.log(`${parallel} parallel resources/read of a ${values.megabytes} MB file, server at ${root}\n`);
  console.log(
    "| era | file | RSS before (MB) | peak RSS (MB) | RSS after (MB) | statuses | answer MB | seconds |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const era of ERAS) for (const kind of KINDS) console.log(await measure(dir, era, kind));
} finally {
  await rm(dir, { recursive: true, force: true });
}
