/**
 * A repin whose review fails after the new commits were written must say what was written: it said
 * "nothing written; skills is as it was" (a FetcherError) or crashed with a bare stack (anything else),
 * while skills.toml and the skills folder already held the new commits.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { FetcherError } from "../../scripts/fetch-skills/errors.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";
import { makeUpstream, runFetcher, writeManifest } from "./helpers.js";

const failure = vi.hoisted(() => ({ error: new Error("unset") as Error }));
vi.mock("../../scripts/fetch-skills/review.js", () => ({
  reviewRepins: () => Promise.reject(failure.error),
}));

describe("fetch-skills --update when the review fails", () => {
  let tree: TempTree;
  let site: string;
  let moved: string;
  let pins: string;

  beforeAll(async () => {
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
  afterAll(() => tree.remove());

  it.each([
    ["a FetcherError", new FetcherError("the old commit's work folder is full"), false],
    ["any other error, with its stack", new TypeError("review bug"), true],
  ])("says skills.toml and the skills folder hold the new commits, for %s", async (_, error, stack) => {
    failure.error = error;
    const result = await runFetcher(["--update"], site);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `fetch-skills: skills.toml and ${path.join(site, "skills")} hold the new commits, but the review of what they change failed: ${error.message}`,
    );
    expect(result.stderr).not.toContain("nothing written");
    expect(result.stderr.includes(`${error.name}: ${error.message}\n    at `)).toBe(stack);
    expect(await readFile(path.join(site, "skills.toml"), "utf8")).toContain(`ref = "${moved}"`);
  });
});
