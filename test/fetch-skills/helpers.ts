import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { run } from "../../scripts/fetch-skills/cli.js";
import { builtScript } from "../helpers/built-scripts.js";
import { type TreeEntry, writeTree } from "../helpers/skill-tree.js";

const exec = promisify(execFile);

/** Commits made by the tests carry this identity, whatever the machine's git configuration says. */
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Upstream",
  GIT_AUTHOR_EMAIL: "upstream@example.com",
  GIT_COMMITTER_NAME: "Upstream",
  GIT_COMMITTER_EMAIL: "upstream@example.com",
};

export async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec("git", args, { cwd: dir, env: { ...process.env, ...GIT_IDENTITY } });
  return stdout.trim();
}

/** A real upstream repository in a temp folder, reachable as a file:// URL. */
interface UpstreamRepo {
  readonly dir: string;
  readonly url: string;
  /** Writes `files` (null deletes a path), commits everything on the current branch, returns the commit. */
  commit(files: Record<string, TreeEntry | null>, message?: string): Promise<string>;
}

/**
 * The commit HEAD is at, read from the files git has just written instead of asking a git process (one a
 * commit of every fixture); git answers for a branch whose ref is not a file of its own (packed).
 */
async function headOf(dir: string): Promise<string> {
  const head = (await readFile(path.join(dir, ".git/HEAD"), "utf8")).trim();
  if (!head.startsWith("ref: ")) return head;
  const ref = await readFile(path.join(dir, ".git", head.slice("ref: ".length)), "utf8").catch(() => "");
  return ref.trim() || git(dir, "rev-parse", "HEAD");
}

export async function makeUpstream(dir: string, snapshots: Record<string, TreeEntry | null>[] = []) {
  await mkdir(dir, { recursive: true });
  await git(dir, "init", "--quiet", "--initial-branch=main");
  // No delta search when a fetch packs its objects: a fixture's files are alike by construction (40,000
  // lines of "file N line M"), and pack-objects spent 2.5 s of CPU a fetch comparing 1 MiB files that no
  // test is about. What is fetched, and so every assertion, stays the same. Written as `git config` would
  // write it, without a git process of its own: a fixture repository is made for most tests.
  await appendFile(path.join(dir, ".git/config"), "[pack]\n\twindow = 0\n");
  const repo: UpstreamRepo = {
    dir,
    url: pathToFileURL(dir).href,
    async commit(files, message = "update") {
      const writes = Object.fromEntries(
        Object.entries(files).filter(([, entry]) => entry !== null),
      ) as Record<string, TreeEntry>;
      for (const [relative, entry] of Object.entries(files)) {
        if (entry === null) await rm(path.join(dir, relative), { recursive: true, force: true });
      }
      await writeTree(dir, writes);
      await git(dir, "add", "--all");
      await git(dir, "commit", "--quiet", "--allow-empty", "-m", message);
      return headOf(dir);
    },
  };
  const commits: string[] = [];
  for (const snapshot of snapshots) commits.push(await repo.commit(snapshot));
  return { ...repo, commits };
}

interface FetcherRun {
  readonly code: number | null;
  /** The signal that ended a spawned fetcher, if one did. */
  readonly signal?: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export const FIXED_TIME = new Date("2026-01-02T03:04:05.000Z");

/**
 * Runs the CLI in this process, exactly as the entry point does but with its output captured and `env` as
 * its environment.
 */
export async function runFetcher(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<FetcherRun> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    cwd,
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    now: () => FIXED_TIME,
  });
  return { code, stdout, stderr };
}

/**
 * The fetcher's entry point as a command, from any working folder: its bundle, built from the sources
 * before the tests (test/helpers/built-scripts.ts), as each process under tsx compiled its modules anew.
 * The tests that run it `via` npm run it from source, as `npm run fetch-skills` does.
 */
export const ENTRY = [builtScript("scripts/fetch-skills/index.ts")];

/**
 * Runs the fetcher as a real process (for what only a separate process can show). `npm` runs the
 * package script instead; npm runs scripts in the project folder, so only harmless arguments suit it.
 */
export function spawnFetcher(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {},
  via: "node" | "npm" = "node",
): Promise<FetcherRun> {
  return startFetcher(argv, cwd, env, via).done;
}

/** {@link spawnFetcher}, with the process at hand while it runs (to signal it). */
export function startFetcher(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {},
  via: "node" | "npm" = "node",
): { child: ChildProcess; done: Promise<FetcherRun> } {
  const [command, args] =
    via === "node"
      ? [process.execPath, [...ENTRY, ...argv]]
      : ["npm", ["run", "--silent", "fetch-skills", "--", ...argv]];
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const done = new Promise<FetcherRun>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

/** Every file under `dir` with its content, for comparing a whole folder before and after. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full).split(path.sep).join("/")] = await readFile(full, "utf8");
  }
  return files;
}

/** A manifest of `[[source]]` tables written as the tests need them. */
export function manifestOf(sources: Record<string, string | string[]>[]): string {
  return sources
    .map((source) => {
      const lines = Object.entries(source).map(([key, value]) =>
        Array.isArray(value)
          ? `${key} = [${value.map((item) => JSON.stringify(item)).join(", ")}]`
          : `${key} = ${JSON.stringify(value)}`,
      );
      return `[[source]]\n${lines.join("\n")}\n`;
    })
    .join("\n");
}

export async function writeManifest(dir: string, text: string, name = "skills.toml"): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

/** A site folder in `parent` holding skills.toml of `sources`; the fetcher writes ./skills beside it. */
export async function makeSite(
  parent: string,
  sources: Record<string, string | string[]>[],
): Promise<string> {
  const site = await mkdtemp(path.join(parent, "site-"));
  await writeManifest(site, manifestOf(sources));
  return site;
}
