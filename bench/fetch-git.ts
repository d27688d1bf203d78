/**
 * How many git processes the fetcher starts, and its wall and CPU time: builds `--sources` scratch
 * upstream repositories of two commits each (a few skills, a shared folder), a site pinning each first
 * commit, then runs `fetch-skills` on it (a cold fetch, stores in a temp folder), with `--cache` once the
 * cache holds every commit, and `fetch-skills --update` (the repin and its review: each source's old and
 * new commits). Each run goes once through a `git` on PATH that counts the subcommands it is asked for
 * (git's own children, such as the `reset` that `worktree add` runs, are not counted), and `--runs` times
 * without it for the times. Asserts nothing.
 *
 *   npx tsx bench/fetch-git.ts [--sources 12] [--runs 3] [--root <checkout>]
 *
 * `--root` runs another checkout's fetcher (through this checkout's tsx): a before and after in one command.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readCommandLine, wholeNumber } from "./command-line.js";
import { ROOT } from "./processes.js";

const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

const COMMAND = {
  name: "bench/fetch-git",
  usage: "usage: npx tsx bench/fetch-git.ts [--sources 12] [--runs 3] [--root <checkout>]",
};
const { values } = readCommandLine(COMMAND, {
  sources: { type: "string", default: "12" },
  runs: { type: "string", default: "3" },
  root: { type: "string", default: ROOT },
});
const sources = wholeNumber(COMMAND, "--sources", values.sources);
const runs = wholeNumber(COMMAND, "--runs", values.runs);
const root = path.resolve(values.root);

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
    cwd: dir,
    encoding: "utf8",
  }).trim();
}

async function commit(repo: string, version: number): Promise<string> {
  for (let skill = 0; skill < 3; skill++) {
    const folder = path.join(repo, "skills", `skill-${skill}`);
    await mkdir(path.join(folder, "references"), { recursive: true });
    await writeFile(
      path.join(folder, "SKILL.md"),
      `---\nname: skill-${skill}\ndescription: Does things, version ${version}.\n---\n# Skill ${skill}\n`,
    );
    await writeFile(path.join(folder, "references", "notes.md"), `Notes of version ${version}.\n`);
  }
  await mkdir(path.join(repo, "shared"), { recursive: true });
  await writeFile(path.join(repo, "shared", "common.md"), `Shared, version ${version}.\n`);
  await writeFile(path.join(repo, "README.md"), `Upstream, version ${version}.\n`);
  git(repo, "add", "--all");
  git(repo, "commit", "--quiet", "-m", `version ${version}`);
  return git(repo, "rev-parse", "HEAD");
}

/** A `git` that appends its subcommand (past `-c name=value`, `--work-tree <dir>` and other options) to `log`. */
function countingGit(realGit: string, log: string): string {
  return `#!/bin/sh
for arg in "$@"; do
  case "$skip$arg" in
    1*) skip= ;;
    -c|-C|--work-tree|--git-dir|--namespace) skip=1 ;;
    -*) ;;
    *) echo "$arg" >> '${log}'; break ;;
  esac
done
exec '${realGit}' "$@"
`;
}

interface Timed {
  readonly wall: number;
  readonly cpu: number;
}

function runFetcher(site: string, args: readonly string[], env: NodeJS.ProcessEnv): Timed {
  const run = spawnSync(
    "/usr/bin/time",
    [
      "-f",
      "%e %U %S",
      process.execPath,
      "--import",
      TSX_LOADER,
      path.join(root, "scripts/fetch-skills/index.ts"),
      ...args,
    ],
    { cwd: site, encoding: "utf8", env },
  );
  const last = run.stderr.trim().split("\n").at(-1) ?? "";
  const [wall = Number.NaN, user = Number.NaN, system = Number.NaN] = last.split(" ").map(Number);
  if (run.status !== 0) throw new Error(`fetch-skills ${args.join(" ")} failed:\n${run.stderr}`);
  return { wall, cpu: user + system };
}

/**
 * A hash of every path and file under `folder`, less what differs between two builds of the scratch
 * repositories (their temp folders, their commits' ids) and fetch times: equal outputs, equal hashes.
 */
async function digest(folder: string): Promise<string> {
  const hash = createHash("sha256");
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries.map((entry) => path.join(entry.parentPath, entry.name)).sort();
  for (const file of files) {
    hash.update(`${path.relative(folder, file)}\0`);
    const entry = entries.find((item) => path.join(item.parentPath, item.name) === file);
    if (!entry?.isFile()) continue;
    hash.update((await readFile(file, "utf8")).replace(/"(fetchedAt|repo|ref)": "[^"]*"/g, ""));
  }
  return hash.digest("hex").slice(0, 12);
}

const dir = await mkdtemp(path.join(tmpdir(), "fetch-git-"));
try {
  const firsts: string[] = [];
  const urls: string[] = [];
  for (let source = 0; source < sources; source++) {
    const repo = path.join(dir, "upstream", `repo-${source}`);
    await mkdir(repo, { recursive: true });
    git(repo, "init", "--quiet", "--initial-branch=main");
    firsts.push(await commit(repo, 1));
    await commit(repo, 2);
    urls.push(pathToFileURL(repo).href);
  }
  const manifest = urls
    .map(
      (url, source) =>
        `[[source]]\nname = "pack-${source}"\nrepo = "${url}"\nref = "${firsts[source]}"\npath = "skills"\nextras = ["shared"]\n`,
    )
    .join("\n");
  const shim = path.join(dir, "bin");
  await mkdir(shim);
  const log = path.join(dir, "git.log");
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  await writeFile(path.join(shim, "git"), countingGit(realGit, log));
  await chmod(path.join(shim, "git"), 0o755);

  const cache = path.join(dir, "cache");
  const scenarios = [
    { name: "fetch", args: [] },
    { name: "fetch --cache, warm", args: ["--cache", cache] },
    { name: "update+review", args: ["--update"] },
  ];
  for (const { name, args } of scenarios) {
    if (args.includes(cache)) {
      const site = path.join(dir, "site-warm");
      await mkdir(site);
      await writeFile(path.join(site, "skills.toml"), manifest);
      runFetcher(site, args, process.env);
    }
    const times: Timed[] = [];
    let counts = new Map<string, number>();
    const digests = new Set<string>();
    for (let run = 0; run <= runs; run++) {
      const site = path.join(dir, `site-${name}-${run}`);
      await mkdir(site);
      await writeFile(path.join(site, "skills.toml"), manifest);
      const counted = run === 0;
      await rm(log, { force: true });
      const env = counted ? { ...process.env, PATH: `${shim}:${process.env.PATH ?? ""}` } : process.env;
      const timed = runFetcher(site, args, env);
      if (counted) {
        const lines = (await readFile(log, "utf8")).trim().split("\n");
        counts = new Map();
        for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
      } else times.push(timed);
      digests.add(await digest(path.join(site, "skills")));
    }
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    const byCommand = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([command, count]) => `${command} ${count}`)
      .join(", ");
    const median = (pick: (timed: Timed) => number) => {
      const sorted = times.map(pick).sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    };
    console.log(
      `${name} (${sources} sources): ${total} git processes (${(total / sources).toFixed(1)} a source): ${byCommand}`,
    );
    console.log(
      `  output ${[...digests].join(" / ")}; median of ${runs}: wall ${median((t) => t.wall).toFixed(2)} s, CPU (user+sys, all processes) ${median((t) => t.cpu).toFixed(2)} s`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
