/**
 * Child processes for the benchmark: the real server (`node dist/main.js`, as in production) and the
 * ceiling (a bare Fastify app), each in its own process so that neither shares an event loop with the
 * load generator, which runs in the bench's own process.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort } from "../scripts/free-port.js";
import { PRODUCTION_SETTINGS } from "../scripts/production-settings.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER_ENTRY = path.join(ROOT, "dist/main.js");
const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const CEILING_ENTRY = fileURLToPath(new URL("./ceiling-server.ts", import.meta.url));

export interface RunningProcess {
  readonly url: string;
  readonly pid: number;
  /** From spawn to the first 200 of the ready path. */
  readonly readyMs: number;
  readonly logFile: string;
  /** Resident memory now, in bytes (Linux /proc). */
  residentBytes(): number;
  /** CPU time the process has used so far, all threads, in ms (Linux /proc, 10 ms ticks). */
  cpuMs(): number;
  /** The JSON log lines written so far (the server logs with pino). */
  logLines(): Record<string, unknown>[];
  stop(): Promise<void>;
}

interface ServerOptions {
  readonly skillsDir: string;
  /** The server's entry point: this checkout's `dist/main.js` unless another build is measured. */
  readonly entry?: string;
  readonly logDir: string;
  readonly name: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly readyTimeoutMs?: number;
}

/**
 * Starts `node dist/main.js` on a free port of 127.0.0.1 with production defaults (PRODUCTION_SETTINGS:
 * logs at info), whatever the environment says; `env` sets others.
 */
export async function startServer(options: ServerOptions): Promise<RunningProcess> {
  const entry = options.entry ?? SERVER_ENTRY;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first`);
  const port = await freePort();
  return startProcess({
    name: options.name,
    args: [entry],
    env: {
      ...PRODUCTION_SETTINGS,
      SKILLS_DIR: options.skillsDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      SHUTDOWN_DRAIN_MS: "0",
      ...options.env,
    },
    port,
    readyPath: "/health",
    logDir: options.logDir,
    readyTimeoutMs: options.readyTimeoutMs ?? 180_000,
  });
}

/**
 * Runs `dist/main.js --build-index` on `skillsDir`, as the image build does: the server started next on
 * the same skills loads the saved index instead of building one. Returns the wall time it took, and the
 * time of its inspection of every skill, as its log says.
 */
export function saveSearchIndex(
  skillsDir: string,
  entry: string = SERVER_ENTRY,
): { ms: number; inspectionMs: number } {
  const started = performance.now();
  const log = execFileSync(process.execPath, [entry, "--build-index"], {
    cwd: ROOT,
    env: { ...process.env, ...PRODUCTION_SETTINGS, NODE_OPTIONS: "", SKILLS_DIR: skillsDir },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 2 ** 28,
  });
  const ms = performance.now() - started;
  const inspected = parseLogLines(log).find((line) => line.msg === "skills inspected");
  return { ms, inspectionMs: typeof inspected?.ms === "number" ? inspected.ms : Number.NaN };
}

/** Starts the ceiling: a bare Fastify app answering each recorded request with its recorded bytes. */
export async function startCeiling(fixturesFile: string, logDir: string): Promise<RunningProcess> {
  const port = await freePort();
  return startProcess({
    name: "ceiling",
    args: ["--import", TSX_LOADER, CEILING_ENTRY, fixturesFile, String(port)],
    env: {},
    port,
    readyPath: "/health",
    logDir,
    readyTimeoutMs: 30_000,
  });
}

interface ProcessOptions {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly port: number;
  readonly readyPath: string;
  readonly logDir: string;
  readonly readyTimeoutMs: number;
}

async function startProcess(options: ProcessOptions): Promise<RunningProcess> {
  // Logs go to a file, as they would go to a container's log pipe: reading them here would cost the
  // load generator, and an unread pipe would block the server.
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const log = openSync(logFile, "w");
  const started = performance.now();
  const child = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "", ...options.env },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;
  const readyMs = await waitUntilReady(child, `${url}${options.readyPath}`, started, options, logFile);
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    readyMs,
    logFile,
    residentBytes: () => residentBytes(pid),
    cpuMs: () => cpuMs(pid),
    logLines: () => readLogLines(logFile),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killed = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

async function waitUntilReady(
  child: ChildProcess,
  readyUrl: string,
  started: number,
  options: ProcessOptions,
  logFile: string,
): Promise<number> {
  while (performance.now() - started < options.readyTimeoutMs) {
    if (child.exitCode !== null) {
      throw new Error(`${options.name} exited with ${child.exitCode}:\n${tail(logFile)}`);
    }
    try {
      const response = await fetch(readyUrl);
      await response.arrayBuffer();
      if (response.ok) return performance.now() - started;
    } catch {
      // Not listening yet.
    }
    await sleep(5);
  }
  child.kill("SIGKILL");
  throw new Error(`${options.name} was not ready within ${options.readyTimeoutMs} ms:\n${tail(logFile)}`);
}

function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match?.[1] ? Number(match[1]) * 1024 : Number.NaN;
}

/** Clock ticks per second of /proc's CPU times. */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

function cpuMs(pid: number): number {
  // utime and stime are the 14th and 15th fields; the 2nd, the command, may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function readLogLines(logFile: string): Record<string, unknown>[] {
  return parseLogLines(readFileSync(logFile, "utf8"));
}

/** The JSON lines of a server's log (pino writes one object a line). */
function parseLogLines(log: string): Record<string, unknown>[] {
  return log
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function tail(logFile: string): string {
  return readFileSync(logFile, "utf8").split("\n").slice(-20).join("\n");
}
