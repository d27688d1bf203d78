/** What the repin review's test files share: a site bumped with --summary and --findings, and what it wrote. */
import { mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { manifestOf, runFetcher, writeManifest } from "./helpers.js";

export interface Bumped {
  readonly site: string;
  readonly code: number | null;
  readonly summary: string;
  readonly findings: { path: string; line: number; rule: string; severity: string; new: boolean }[];
  readonly stderr: string;
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
 * repinned to their heads with --summary and --findings.
 */
export async function bumpIn(dir: string, sources: readonly BumpSource[]): Promise<Bumped> {
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
  const result = await runFetcher(["--update", "--summary", "pr.md", "--findings", "findings.json"], site);
  const summary = await readFile(path.join(site, "pr.md"), "utf8").catch(() => "");
  const json = await readFile(path.join(site, "findings.json"), "utf8").catch(() => '{"findings":[]}');
  return { site, code: result.code, summary, findings: JSON.parse(json).findings, stderr: result.stderr };
}
