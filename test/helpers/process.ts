import { type ChildProcess, execFile, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, vi } from "vitest";
import { type BuiltScript, builtScript } from "./built-scripts.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** tsx's loader, for `node --import`: runs TypeScript from source, from any working folder. */
export const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
/**
 * The server as built: test/global-setup.ts builds it from the sources before the tests run. Compiling
 * them again in every process the tests start took a second of CPU each.
 */
export const MAIN = [fileURLToPath(new URL("../../dist/main.js", import.meta.url))];
/** Whether a process can run here as PID 1 of a pid namespace of its own (root, with util-linux's unshare). */
export function canRunAsPid1(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("unshare", ["--pid", "--fork", process.execPath, "-p", "process.pid"], (error, stdout) =>
      resolve(error === null && stdout.trim() === "1"),
    );
  });
}

/** How long a process of a test may take to start or finish, on a machine busy with other work. */
const PROCESS_MS = 60_000;
/**
 * What every server process of a test runs with, unless the test sets it: no load shedding, which a machine
 * busy with other work would trigger (tests of shedding set it themselves).
 */
export const TEST_ENV: Readonly<Record<string, string>> = { SHED_EVENT_LOOP_DELAY_MS: "0" };

export interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A user to run a process as (its uid and gid), for a test that needs one other than root. */
export interface User {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Runs a script of the project (`scripts/…`, relative to the root) to completion from source, as its npm
 * script does, as `user` when given; a failing exit is an answer, not an error.
 */
export function runScript(
  script: string,
  args: readonly string[] = [],
  cwd = ROOT,
  user?: User,
): Promise<Exited> {
  return runNode(["--import", TSX_LOADER, path.join(ROOT, script), ...args], cwd, user);
}

/** Runs a script as runScript does, from its bundle (test/helpers/built-scripts.ts) instead of its source. */
export function runBuiltScript(
  script: BuiltScript,
  args: readonly string[] = [],
  cwd = ROOT,
  user?: User,
): Promise<Exited> {
  return runNode([builtScript(script), ...args], cwd, user);
}

/**
 * Runs `npm run <script> -- <args>` in the project to completion, as people run it, and says whether it
 * built dist/ meanwhile (dist/main.js written anew, which the build always does).
 */
export async function runNpmScript(
  script: string,
  args: readonly string[],
): Promise<Exited & { readonly built: boolean }> {
  const main = MAIN[0] ?? "";
  const before = (await stat(main)).mtimeMs;
  const exited = await new Promise<Exited>((resolve) => {
    execFile(
      "npm",
      ["run", script, "--", ...args],
      { cwd: ROOT, timeout: PROCESS_MS },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
  return { ...exited, built: (await stat(main)).mtimeMs !== before };
}

function runNode(argv: readonly string[], cwd: string, user: User | undefined): Promise<Exited> {
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd, timeout: PROCESS_MS, ...user }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** Runs the server to completion (for the ways it refuses to start). */
export function runServer(env: Record<string, string>, args: string[] = [], cwd = ROOT): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...MAIN, ...args], {
      cwd,
      env: { ...process.env, ...TEST_ENV, ...env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), PROCESS_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() });
    });
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process wrote to stdout so far. */
  output(): string;
  /** Resolves with the exit code once the process ends. */
  readonly exited: Promise<number | null>;
}

/** Starts the HTTP server on a free port of 127.0.0.1 (as `user` when given) and resolves once it listens. */
export function startServerProcess(
  env: Record<string, string>,
  cwd = ROOT,
  user?: User,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, MAIN, {
    cwd,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...TEST_ENV, ...env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start:\n${stdout}\n${stderr}`));
    }, PROCESS_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => stdout, exited });
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

/** The server processes of a test file: each started once ready, all stopped (and awaited) together. */
export class ServerProcesses {
  readonly #running: ServerProcess[] = [];

  /** Starts a server (see startServerProcess) and resolves once its log says it is `ready`. */
  async startReady(env: Record<string, string>): Promise<ServerProcess> {
    const server = await startServerProcess(env);
    this.#running.push(server);
    await vi.waitFor(() => expect(server.output()).toContain('"msg":"ready"'));
    return server;
  }

  /** SIGTERM to every server started so far, resolved once each has exited. */
  async stopAll(): Promise<void> {
    for (const server of this.#running.splice(0)) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }
}

/** The JSON lines of a server's log (pino), as objects; other output is skipped. */
export function logLines(output: string): Record<string, unknown>[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A line the server wrote to stdout: a JSON-RPC answer. */
export interface StdioAnswer {
  readonly jsonrpc?: string;
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** What a child process with piped stdout and stderr has written so far, and its exit code once it ends. */
export function outputOf(child: ChildProcess): {
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
} {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * The built server with `--stdio` and exactly `env`, written to line by line, its output kept; `end` closes
 * stdin and gives the exit code.
 */
export function stdioServerProcess(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [...MAIN, "--stdio"], { cwd: ROOT, env });
  const { stdout, stderr, exited } = outputOf(child);
  // Writes to a server that exited fail: the test sees that in what it answered, not as an uncaught EPIPE.
  child.stdin.on("error", () => {});
  return {
    pid: child.pid,
    write: (text: string | Buffer) => child.stdin.write(text),
    stdout,
    /** Each line of stdout, parsed. */
    answers: (): StdioAnswer[] =>
      stdout()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as StdioAnswer),
    stderr,
    end: () => {
      child.stdin.end();
      return exited;
    },
    /** Sends `signal`, stdin left open, and gives the exit code. */
    signal: (signal: NodeJS.Signals) => {
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * The pid of a child the test started, or an error if its spawn failed: a failed spawn has no pid, and
 * `process.kill(0)` (or `-0`) signals the test runner's own process group.
 */
export function pidOf(child: { readonly pid?: number | undefined }): number {
  if (child.pid === undefined) throw new Error("the child process did not start");
  return child.pid;
}
