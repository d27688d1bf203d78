/** What the repin review's test files share: a site bumped with --summary and --findings, and what it wrote. */
import { spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { ENTRY, manifestOf, runFetcher, writeManifest } from "./helpers.js";

/** A finding `--findings` lists, named for one path that shows it. */
export interface WrittenFinding {
  path: string;
  line: number;
  rule: string;
  severity: "high" | "medium" | "low";
  detail: string;
  new: boolean;
}

/** `--findings`' lists of findings, each with the paths that show it. */
export interface FindingLists {
  readonly findingLists: readonly {
    readonly paths: readonly string[];
    readonly findings: readonly Omit<WrittenFinding, "path">[];
  }[];
}

export interface Bumped {
  readonly site: string;
  readonly code: number | null;
  readonly summary: string;
  /** Each path's findings, as a reader of `--findings` counts them (see eachPathsFindings). */
  readonly findings: WrittenFinding[];
  readonly stderr: string;
}

/** The findings of `--findings`' lists, one for each path that shows them: what the review counts. */
export function eachPathsFindings({ findingLists }: FindingLists): WrittenFinding[] {
  return findingLists.flatMap(({ paths, findings }) =>
    paths.flatMap((where) => findings.map((found) => ({ path: where, ...found }))),
  );
}

/** A source a site pins: its skills are in `skills` of its repository, or in its own `path`. */
export interface BumpSource {
  readonly name: string;
  readonly url: string;
  readonly ref: string;
  readonly path?: string;
}

/**
 * A site in a new folder under `dir` pinning `sources` at `ref` (their first commit, in the tests),
 * repinned to their heads with --summary and --findings: in this process, or with `heapMiB`, by the
 * fetcher's bundle in a process of its own whose heap is held to that.
 */
export async function bumpIn(dir: string, sources: readonly BumpSource[], heapMiB?: number): Promise<Bumped> {
  const site = await mkdtemp(path.join(dir, "site-"));
  await writeManifest(
    site,
    manifestOf(
      sources.map(({ name, url, ref, path = "skills" }) => ({
        name,
        repo: url,
        ref,
        path,
        extras: ["shared"],
      })),
    ),
  );
  const argv = ["--update", "--summary", "pr.md", "--findings", "findings.json"];
  const result =
    heapMiB === undefined ? await runFetcher(argv, site) : await fetcherInHeap(argv, site, heapMiB);
  const summary = await readFile(path.join(site, "pr.md"), "utf8").catch(() => "");
  // A run that failed may have written none; one that succeeded must have, or "no findings" would pass unseen.
  const json = await readFile(path.join(site, "findings.json"), "utf8").catch((error: unknown) => {
    if (result.code === 0) throw error;
    return '{"findingLists":[]}';
  });
  return {
    site,
    code: result.code,
    summary,
    findings: eachPathsFindings(JSON.parse(json)),
    stderr: result.stderr,
  };
}

/** The fetcher's bundle run in `cwd` with its heap held to `heapMiB`: its exit code (null when killed) and stderr. */
function fetcherInHeap(
  argv: readonly string[],
  cwd: string,
  heapMiB: number,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMiB}`, ...ENTRY, ...argv], {
    cwd,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}
