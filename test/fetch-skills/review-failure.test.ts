/**
 * A repin whose review fails after the new commits were written must say what was written: it said
 * "nothing written; skills is as it was" (a FetcherError) or crashed with a bare stack (anything else),
 * while skills.toml and the skills folder already held the new commits.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { FIXED_TIME, makeUpstream, writeManifest } from "./helpers.js";

const REVIEW = "../../scripts/fetch-skills/review.js";
const failure: { error: Error } = { error: new Error("unset") };

/**
 * The fetcher's modules imported anew with a review that fails: the suite's workers share modules
 * (vitest.config.ts), so a module is mocked for this file's imports only, and the real one restored after.
 */
async function fetcherWithFailingReview() {
  vi.resetModules();
  vi.doMock(REVIEW, () => ({ reviewRepins: () => Promise.reject(failure.error) }));
  const [{ run }, { FetcherError }] = await Promise.all([
    import("../../scripts/fetch-skills/cli.js"),
    import("../../scripts/fetch-skills/errors.js"),
  ]);
  return { run, FetcherError };
}

describe("fetch-skills --update when the review fails", () => {
  let tree: TempTree;
  let site: string;
  let moved: string;
  let pins: string;
  let fetcher: Awaited<ReturnType<typeof fetcherWithFailingReview>>;

  beforeAll(async () => {
    fetcher = await fetcherWithFailingReview();
    tree = await makeTree({});
    const upstream = await makeUpstream(path.join(tree.dir, "up"), [
      { "skills/one/SKILL.md": skillMd("one") },
    ]);
    const first = upstream.commits[0] ?? "";
    moved = await upstream.commit({ "skills/two/SKILL.md": skillMd("two") });
    site = await mkdtemp(path.join(tree.dir, "site-"));
    pins = `[[source]]\nname = "up"\nrepo = "${upstream.url}"\nref = "${first}"\npath = "skills"\n`;
  });
  beforeEach(() => writeManifest(site, pins));
  afterAll(async () => {
    vi.doUnmock(REVIEW);
    vi.resetModules();
    await tree.remove();
  });

  it.each([
    ["a FetcherError", (message: string) => new fetcher.FetcherError(message), false],
    ["any other error, with its stack", (message: string) => new TypeError(message), true],
  ])("says skills.toml and the skills folder hold the new commits, for %s", async (_, make, stack) => {
    const error = make("the review could not go on");
    failure.error = error;
    let stderr = "";
    const code = await fetcher.run(["--update"], {
      cwd: site,
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
      now: () => FIXED_TIME,
    });
    const result = { code, stderr };

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: skills.toml and ${path.join(site, "skills")} hold the new commits, but the review of what they change failed: ${error.message}`,
    );
    expect(result.stderr).not.toContain("nothing written");
    expect(result.stderr.includes(`${error.name}: ${error.message}\n    at `)).toBe(stack);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toContain(`ref = "${moved}"`);
  });
});
